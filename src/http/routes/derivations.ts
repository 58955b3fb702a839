// The derivation routes (src/contract/derivations.ts): queue runs, read them, promote, rebind.
import type { FastifyInstance } from "fastify";
import { GET_RUN, LIST_RUNS, PROMOTE, REBIND, REQUEST_RUN } from "../../contract/index.js";
import { getRun, promote, type RunsQuery, rebind, requestRun, runsPage } from "../../derivations/index.js";
import type { Db } from "../../platform/db/index.js";
import { contractRoute } from "../contract-route.js";

export function derivationRoutes(app: FastifyInstance, db: Db): void {
  app.route<{ Params: { name: string }; Body: { entity: string } }>({
    ...contractRoute(REQUEST_RUN),
    handler: async (request, reply) =>
      reply.code(202).send(await requestRun(db, request.workspace, request.params.name, request.body.entity)),
  });
  app.route<{ Querystring: RunsQuery }>({
    ...contractRoute(LIST_RUNS),
    handler: async (request) => runsPage(db, request.workspace.id, request.query),
  });
  app.route<{ Params: { id: string }; Querystring: { output_offset: number; output_limit: number } }>({
    ...contractRoute(GET_RUN),
    handler: async (request) => getRun(db, request.workspace.id, request.params.id, request.query),
  });
  app.route<{ Body: { entity: string; source_run_id: string; artifact: string } }>({
    ...contractRoute(PROMOTE),
    handler: async (request) => promote(db, request.workspace, request.body),
  });
  app.route<{ Params: { name: string }; Body: { entity: string; policy: "reset" | "carry" } }>({
    ...contractRoute(REBIND),
    handler: async (request) => rebind(db, request.workspace, request.params.name, request.body),
  });
}
