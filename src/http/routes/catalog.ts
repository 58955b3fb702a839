// The catalog routes (src/contract/catalog.ts): publish a package and read what is installed.
import type { FastifyInstance } from "fastify";
import {
  type CatalogDeps,
  catalogDefinitions,
  catalogPruneReport,
  describeCatalog,
  dryRunPublish,
  installedCompatibility,
  type PublishRequest,
  publishCatalog,
} from "../../catalog/index.js";
import {
  CATALOG_COMPATIBILITY,
  CATALOG_DEFINITIONS,
  CATALOG_PRUNE,
  DESCRIBE_CATALOG,
  PUBLISH_CATALOG,
} from "../../contract/index.js";
import { validationError } from "../../platform/errors.js";
import { contractRoute } from "../contract-route.js";

export function catalogRoutes(app: FastifyInstance, deps: CatalogDeps): void {
  const { db } = deps;
  app.route<{ Body: PublishRequest; Querystring: { dry_run?: boolean; diff?: boolean } }>({
    ...contractRoute(PUBLISH_CATALOG),
    handler: async (request) => {
      const { dry_run, diff } = request.query;
      if (diff && !dry_run) {
        const message = "answers what a dry run would change: use it with dry_run=true";
        throw validationError(`invalid diff: ${message}`, [{ path: "querystring.diff", message }]);
      }
      if (dry_run) return dryRunPublish(deps, request.workspace, request.body, { diff });
      return publishCatalog(deps, request.workspace, request.body);
    },
  });
  app.route({
    ...contractRoute(DESCRIBE_CATALOG),
    handler: async (request) => describeCatalog(db, request.workspace.id),
  });
  app.route({
    ...contractRoute(CATALOG_DEFINITIONS),
    handler: async (request) => catalogDefinitions(db, request.workspace.id),
  });
  app.route({
    ...contractRoute(CATALOG_COMPATIBILITY),
    handler: async (request) => installedCompatibility(deps, request.workspace.id),
  });
  app.route({
    ...contractRoute(CATALOG_PRUNE),
    handler: async (request) => catalogPruneReport(deps, request.workspace.id),
  });
}
