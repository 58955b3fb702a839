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
import { type Db, storageLayout } from "../../platform/db/index.js";

/** Discovery of the installed catalog: read-only, 409 no_catalog before the first publish. */
export function discoveryRoutes(app: FastifyInstance, db: Db): void {
  const tags = ["discovery"];
  app.get(
    "/collections",
    { schema: { summary: "Collection summaries, bindings and hashes", tags } },
    async (request) => ({
      collections: collectionSummaries(await requireCatalog(db, request.workspace.id)),
    }),
  );
  app.get(
    "/processors",
    { schema: { summary: "Processor and derivation summaries", tags } },
    async (request) => ({
      processors: processorSummaries(await requireCatalog(db, request.workspace.id)),
    }),
  );
  app.get(
    "/triggers",
    { schema: { summary: "Triggers and the derivations they queue", tags } },
    async (request) => ({
      triggers: triggerSummaries(await requireCatalog(db, request.workspace.id)),
    }),
  );
  app.get(
    "/views",
    { schema: { summary: "Every loaded view version, active or not", tags } },
    async (request) => ({
      views: viewSummaries(await requireCatalog(db, request.workspace.id)),
    }),
  );
  app.get("/artifacts", { schema: { summary: "Loaded artifact definitions", tags } }, async (request) => ({
    artifacts: artifactSummaries(await requireCatalog(db, request.workspace.id)),
  }));
  app.get(
    "/rank/schema",
    { schema: { summary: "Rank grammar, score contract, active formulas and backend capabilities", tags } },
    async (request) => rankSchema(await requireCatalog(db, request.workspace.id), storageLayout(db)),
  );
}
