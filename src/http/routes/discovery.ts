// The discovery routes (src/contract/discovery.ts): summaries of the installed catalog.
import type { FastifyInstance } from "fastify";
import {
  artifactSummaries,
  collectionSummaries,
  processorSummaries,
  rankSchema,
  requireCatalog,
  triggerSummaries,
  viewSummaries,
} from "../../catalog/index.js";
import { ARTIFACTS, COLLECTIONS, PROCESSORS, RANK_SCHEMA, TRIGGERS, VIEWS } from "../../contract/index.js";
import { type Db, storageLayout } from "../../platform/db/index.js";
import { contractRoute } from "../contract-route.js";

/** Discovery of the installed catalog: read-only, 409 no_catalog before the first publish. */
export function discoveryRoutes(app: FastifyInstance, db: Db): void {
  app.route({
    ...contractRoute(COLLECTIONS),
    handler: async (request) => ({
      collections: collectionSummaries(await requireCatalog(db, request.workspace.id)),
    }),
  });
  app.route({
    ...contractRoute(PROCESSORS),
    handler: async (request) => ({
      processors: processorSummaries(await requireCatalog(db, request.workspace.id)),
    }),
  });
  app.route({
    ...contractRoute(TRIGGERS),
    handler: async (request) => ({
      triggers: triggerSummaries(await requireCatalog(db, request.workspace.id)),
    }),
  });
  app.route({
    ...contractRoute(VIEWS),
    handler: async (request) => ({ views: viewSummaries(await requireCatalog(db, request.workspace.id)) }),
  });
  app.route({
    ...contractRoute(ARTIFACTS),
    handler: async (request) => ({
      artifacts: artifactSummaries(await requireCatalog(db, request.workspace.id)),
    }),
  });
  app.route({
    ...contractRoute(RANK_SCHEMA),
    handler: async (request) => rankSchema(await requireCatalog(db, request.workspace.id), storageLayout(db)),
  });
}
