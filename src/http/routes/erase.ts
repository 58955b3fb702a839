import type { FastifyInstance } from "fastify";
import type { Config } from "../../config/index.js";
import { type EraseRequest, eraseRequest } from "../../erasure/index.js";
import type { Db } from "../../platform/db/index.js";
import { ROW_LIMITS, UUID_PATTERN } from "../../records/row-schema.js";

// A request naming more ids than the default ERASE_MAX_RECORDS could never be erased whole.
const IDS_MAX = 100_000;

export function eraseRoutes(app: FastifyInstance, db: Db, config: Config): void {
  app.post<{ Body: EraseRequest }>(
    "/erase",
    {
      schema: {
        summary:
          "Erase an entity or explicit records with everything derived from them; irreversible, audited without content",
        tags: ["erasure"],
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
    async (request) =>
      eraseRequest(db, request.workspace.id, request.body, { maxRecords: config.eraseMaxRecords }),
  );
}
