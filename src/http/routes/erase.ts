// POST /erase (src/contract/erase.ts): erase, or count what an erasure would remove.
import type { FastifyInstance } from "fastify";
import type { Config } from "../../config/index.js";
import { DERIVED_LIST_MAX, ERASE } from "../../contract/index.js";
import { type EraseRequest, eraseDryRun, eraseRequest } from "../../erasure/index.js";
import type { Db } from "../../platform/db/index.js";
import { validationError } from "../../platform/errors.js";
import { contractRoute } from "../contract-route.js";

export function eraseRoutes(app: FastifyInstance, db: Db, config: Config): void {
  app.route<{ Body: EraseRequest; Querystring: { dry_run: boolean; list: boolean } }>({
    ...contractRoute(ERASE),
    handler: async (request) => {
      const options = { maxRecords: config.eraseMaxRecords };
      const { dry_run, list } = request.query;
      if (list && !dry_run) {
        const message = "names what a dry run would remove: use it with dry_run=true";
        throw validationError(`invalid list: ${message}`, [{ path: "querystring.list", message }]);
      }
      return dry_run
        ? eraseDryRun(db, request.workspace.id, request.body, {
            ...options,
            listMax: list ? DERIVED_LIST_MAX : undefined,
          })
        : eraseRequest(db, request.workspace.id, request.body, options);
    },
  });
}
