// POST /reindex (src/contract/reindex.ts): rebuild the search projection.
import type { FastifyInstance } from "fastify";
import type { Config } from "../../config/index.js";
import { REINDEX } from "../../contract/index.js";
import type { Db } from "../../platform/db/index.js";
import { type ReindexRequest, startReindex } from "../../records/index.js";
import { contractRoute } from "../contract-route.js";

export function reindexRoutes(app: FastifyInstance, db: Db, config: Config): void {
  app.route<{ Body: ReindexRequest }>({
    ...contractRoute(REINDEX),
    handler: async (request) => startReindex(db, request.workspace, request.body, config.testDatabase),
  });
}
