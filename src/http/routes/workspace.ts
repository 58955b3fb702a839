import type { FastifyInstance } from "fastify";
import type { Db } from "../../platform/db/index.js";
import { type EntityQuery, listEntities } from "../../records/index.js";
import { ROW_LIMITS } from "../../records/row-schema.js";
import { workspaceOverview } from "../../workspaces/index.js";

/** What a client needs to size its writes (a client splits a large write into batches by them). */
export interface WriteLimits {
  max_batch_records: number;
  max_body_bytes: number;
}

/** GET /workspace and GET /entities: what the key's workspace holds (the operator console's overview). */
export function workspaceRoutes(app: FastifyInstance, db: Db, limits: WriteLimits): void {
  const tags = ["workspace"];
  app.get(
    "/workspace",
    {
      schema: {
        summary:
          "The key's workspace: id, name, counts of records, entities, unready records and jobs, the key's own id, name, scope and expiry, and the server's write limits",
        tags,
      },
    },
    async (request) => ({ ...(await workspaceOverview(db, request.workspace.id)), key: request.key, limits }),
  );
  app.get<{ Querystring: EntityQuery }>(
    "/entities",
    {
      schema: {
        summary: "The workspace's entities in name order, with record counts and their newest record",
        tags,
        querystring: {
          type: "object",
          properties: {
            prefix: {
              type: "string",
              maxLength: ROW_LIMITS.entityChars,
              description: "names starting with this text (% and _ are ordinary characters)",
            },
            limit: { type: "integer", minimum: 1, maximum: 100, default: 50 },
            after: {
              type: "string",
              minLength: 1,
              maxLength: ROW_LIMITS.entityChars,
              description: "next_after of the previous page (the last name it listed)",
            },
          },
          additionalProperties: false,
        },
      },
    },
    async (request) => listEntities(db, request.workspace.id, request.query),
  );
}
