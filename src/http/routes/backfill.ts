import type { FastifyInstance } from "fastify";
import type { Db } from "../../platform/db/index.js";
import { INT4_MAX } from "../../platform/input.js";
import {
  type BackfillRequest,
  cancelBackfill,
  getBackfill,
  listBackfills,
  startBackfill,
} from "../../records/backfill.js";

const params = { type: "object", properties: { id: { type: "string" } }, required: ["id"] } as const;

export function backfillRoutes(app: FastifyInstance, db: Db): void {
  const tags = ["backfill"];
  app.post<{ Body: BackfillRequest }>(
    "/backfill",
    {
      schema: {
        summary: "Run an enrichment processor over a collection version's stored records",
        tags,
        body: {
          type: "object",
          properties: {
            collection: { type: "string", minLength: 1 },
            version: { type: "integer", minimum: 1, maximum: INT4_MAX },
            processor: { type: "string", minLength: 1 },
            max_rows: { type: "integer", minimum: 1, maximum: INT4_MAX },
          },
          required: ["collection", "version", "processor"],
          additionalProperties: false,
        },
      },
    },
    async (request, reply) => reply.code(202).send(await startBackfill(db, request.workspace, request.body)),
  );
  app.get("/backfill", { schema: { summary: "Recent backfills, newest first", tags } }, async (request) => ({
    backfills: await listBackfills(db, request.workspace.id),
  }));
  app.get<{ Params: { id: string } }>(
    "/backfill/:id",
    { schema: { summary: "A backfill's state and counters", tags, params } },
    async (request) => getBackfill(db, request.workspace.id, request.params.id),
  );
  app.post<{ Params: { id: string } }>(
    "/backfill/:id/cancel",
    { schema: { summary: "Stop a backfill at its next batch boundary", tags, params } },
    async (request) => cancelBackfill(db, request.workspace.id, request.params.id),
  );
}
