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

const publishBody = {
  type: "object",
  properties: {
    package: { type: "string", minLength: 1, description: "the manifest to select, name@semver" },
    files: {
      type: "object",
      description: "relative path → YAML text; the package manifest must be included",
      additionalProperties: { type: "string" },
      minProperties: 1,
    },
  },
  required: ["package", "files"],
  additionalProperties: false,
} as const;

export function catalogRoutes(app: FastifyInstance, deps: CatalogDeps): void {
  const { db } = deps;
  app.post<{ Body: PublishRequest; Querystring: { dry_run?: boolean } }>(
    "/catalog",
    {
      schema: {
        summary: "Publish a catalog package (or check it with dry_run=true)",
        tags: ["catalog"],
        body: publishBody,
        querystring: {
          type: "object",
          properties: { dry_run: { type: "boolean" } },
          additionalProperties: false,
        },
      },
    },
    async (request) => {
      if (request.query.dry_run) return dryRunPublish(deps, request.workspace, request.body);
      return publishCatalog(deps, request.workspace, request.body);
    },
  );

  app.get(
    "/catalog",
    { schema: { summary: "The installed package, catalog hash and metadata", tags: ["catalog"] } },
    async (request) => describeCatalog(db, request.workspace.id),
  );

  app.get(
    "/catalog/definitions",
    {
      schema: {
        summary: "The installed package's manifest and every definition it lists, normalized",
        tags: ["catalog"],
      },
    },
    async (request) => catalogDefinitions(db, request.workspace.id),
  );

  app.get(
    "/catalog/compatibility",
    {
      schema: {
        summary: "Compatibility report of the installed catalog",
        tags: ["catalog"],
      },
    },
    async (request) => installedCompatibility(deps, request.workspace.id),
  );

  app.get(
    "/catalog/prune",
    { schema: { summary: "Read-only report of definitions that could be deleted", tags: ["catalog"] } },
    async (request) => catalogPruneReport(deps, request.workspace.id),
  );
}
