import type { FastifyInstance } from "fastify";
import {
  describeCatalog,
  dryRunPublish,
  installedCompatibility,
  type PublishRequest,
  publishCatalog,
} from "../../catalog/index.js";
import type { Db } from "../../platform/db/index.js";

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

const compatibilitySchema = {
  type: "object",
  properties: {
    verdict: { type: "string", enum: ["invisible", "additive", "reinterpreting"] },
    publishable: { type: "boolean" },
    blockers: { type: "array", items: { type: "object", additionalProperties: true } },
  },
  required: ["verdict", "publishable", "blockers"],
} as const;

export function catalogRoutes(app: FastifyInstance, db: Db): void {
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
      if (request.query.dry_run) return dryRunPublish(db, request.workspace, request.body);
      return publishCatalog(db, request.workspace, request.body);
    },
  );

  app.get(
    "/catalog",
    { schema: { summary: "The installed package, catalog hash and metadata", tags: ["catalog"] } },
    async (request) => describeCatalog(db, request.workspace.id),
  );

  app.get(
    "/catalog/compatibility",
    {
      schema: {
        summary: "Compatibility report of the installed catalog",
        tags: ["catalog"],
        response: { 200: compatibilitySchema },
      },
    },
    async (request) => installedCompatibility(db, request.workspace.id),
  );
}
