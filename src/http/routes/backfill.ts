// The backfill routes (src/contract/backfill.ts): start, list, read and cancel a backfill.
import type { FastifyInstance } from "fastify";
import { CANCEL_BACKFILL, GET_BACKFILL, LIST_BACKFILLS, START_BACKFILL } from "../../contract/index.js";
import type { Db } from "../../platform/db/index.js";
import {
  type BackfillRequest,
  cancelBackfill,
  getBackfill,
  listBackfills,
  startBackfill,
} from "../../records/index.js";
import { contractRoute } from "../contract-route.js";

export function backfillRoutes(app: FastifyInstance, db: Db): void {
  app.route<{ Body: BackfillRequest }>({
    ...contractRoute(START_BACKFILL),
    handler: async (request, reply) =>
      reply.code(202).send(await startBackfill(db, request.workspace, request.body)),
  });
  app.route({
    ...contractRoute(LIST_BACKFILLS),
    handler: async (request) => ({ backfills: await listBackfills(db, request.workspace.id) }),
  });
  app.route<{ Params: { id: string } }>({
    ...contractRoute(GET_BACKFILL),
    handler: async (request) => getBackfill(db, request.workspace.id, request.params.id),
  });
  app.route<{ Params: { id: string } }>({
    ...contractRoute(CANCEL_BACKFILL),
    handler: async (request) => cancelBackfill(db, request.workspace.id, request.params.id),
  });
}
