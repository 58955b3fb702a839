import type { FastifyInstance } from "fastify";
import type { Config } from "../../config/index.js";
import type { Db } from "../../platform/db/index.js";
import { SEQ_MAX } from "../../platform/input.js";
import { type ReindexRequest, startReindex } from "../../records/reindex.js";

export function reindexRoutes(app: FastifyInstance, db: Db, config: Config): void {
  app.post<{ Body: ReindexRequest }>(
    "/reindex",
    {
      schema: {
        summary: "Rebuild the search projection after a seq, or entirely (reset)",
        tags: ["backfill"],
        body: {
          type: "object",
          properties: {
            since_seq: { type: "integer", minimum: 0, maximum: SEQ_MAX },
            reset: { type: "boolean" },
            confirm: { type: "boolean" },
          },
          additionalProperties: false,
        },
      },
    },
    async (request) => startReindex(db, request.workspace, request.body, config.testDatabase),
  );
}
