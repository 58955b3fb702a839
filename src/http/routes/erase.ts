import type { FastifyInstance } from "fastify";
import type { Config } from "../../config/index.js";
import { type EraseRequest, eraseDryRun, eraseRequest } from "../../erasure/index.js";
import type { Db } from "../../platform/db/index.js";
import { ROW_LIMITS, UUID_PATTERN } from "../../records/row-schema.js";

// A request naming more ids than the default ERASE_MAX_RECORDS could never be erased whole.
const IDS_MAX = 100_000;

export function eraseRoutes(app: FastifyInstance, db: Db, config: Config): void {
  app.post<{ Body: EraseRequest; Querystring: { dry_run: boolean } }>(
    "/erase",
    {
      schema: {
        summary:
          "Erase an entity or explicit records with everything derived from them; irreversible, audited without content (dry_run: only count them)",
        tags: ["erasure"],
        querystring: {
          type: "object",
          properties: {
            dry_run: {
              type: "boolean",
              default: false,
              description:
                "true: answer what this erasure would remove (deleted, affected_entities, by_collection, derived) and remove nothing",
            },
          },
          additionalProperties: false,
        },
        body: {
          type: "object",
          properties: {
            entity: { type: "string", minLength: 1, maxLength: ROW_LIMITS.entityChars, pattern: "\\S" },
            records: {
              type: "array",
              minItems: 1,
              maxItems: IDS_MAX,
              items: { type: "string", pattern: UUID_PATTERN },
            },
          },
          oneOf: [{ required: ["entity"] }, { required: ["records"] }],
          additionalProperties: false,
        },
      },
    },
    async (request) => {
      const options = { maxRecords: config.eraseMaxRecords };
      return request.query.dry_run
        ? eraseDryRun(db, request.workspace.id, request.body, options)
        : eraseRequest(db, request.workspace.id, request.body, options);
    },
  );
}
