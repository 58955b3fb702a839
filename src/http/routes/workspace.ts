// GET /workspace, GET /workspace/activity and GET /entities (src/contract/workspace.ts).
import type { FastifyInstance } from "fastify";
import { ENTITIES, WORKSPACE, WORKSPACE_ACTIVITY } from "../../contract/index.js";
import type { Db } from "../../platform/db/index.js";
import { dailyActivity, type EntityQuery, listEntities } from "../../records/index.js";
import { workspaceOverview } from "../../workspaces/index.js";
import { contractRoute } from "../contract-route.js";

/** What a client needs to size its writes (a client splits a large write into batches by them). */
export interface WriteLimits {
  max_batch_records: number;
  max_body_bytes: number;
}

/** GET /workspace and GET /entities: what the key's workspace holds (the operator console's overview). */
export function workspaceRoutes(app: FastifyInstance, db: Db, limits: WriteLimits): void {
  app.route({
    ...contractRoute(WORKSPACE),
    handler: async (request) => ({
      ...(await workspaceOverview(db, request.workspace.id)),
      key: request.key,
      limits,
    }),
  });
  app.route<{ Querystring: { days: number } }>({
    ...contractRoute(WORKSPACE_ACTIVITY),
    handler: async (request) => dailyActivity(db, request.workspace.id, request.query.days),
  });
  app.route<{ Querystring: EntityQuery }>({
    ...contractRoute(ENTITIES),
    handler: async (request) => listEntities(db, request.workspace.id, request.query),
  });
}
