// POST /erase (src/contract/erase.ts): erase, or count what an erasure would remove.
import type { FastifyInstance } from "fastify";
import type { Config } from "../../config/index.js";
import { ERASE } from "../../contract/index.js";
import { type EraseRequest, eraseDryRun, eraseRequest } from "../../erasure/index.js";
import type { Db } from "../../platform/db/index.js";
import { contractRoute } from "../contract-route.js";

export function eraseRoutes(app: FastifyInstance, db: Db, config: Config): void {
  app.route<{ Body: EraseRequest; Querystring: { dry_run: boolean } }>({
    ...contractRoute(ERASE),
    handler: async (request) => {
      const options = { maxRecords: config.eraseMaxRecords };
      return request.query.dry_run
        ? eraseDryRun(db, request.workspace.id, request.body, options)
        : eraseRequest(db, request.workspace.id, request.body, options);
    },
  });
}
