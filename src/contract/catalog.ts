// The catalog routes (docs/api.md "Catalog and discovery"): publish (or dry-run) a package, and
// the reads of what is installed: GET /catalog, /catalog/definitions, /catalog/compatibility and
// /catalog/prune.
import { shape } from "./closed-object.js";
import type { RouteContract } from "./route.js";
import { anyObject, bool, int, listOf, mapOf, nullable, str, timestamp } from "./schema-parts.js";

const tags = ["catalog"];
const names = listOf(str);

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

const warnings = {
  ...listOf(str),
  description: "what installs but will refuse: e.g. default collections indexed in several ways",
};

const compatibility = {
  type: "object",
  properties: {
    verdict: { enum: ["invisible", "additive", "reinterpreting"] },
    publishable: bool,
    blockers: listOf(anyObject),
    changes: listOf(anyObject),
    warnings,
    diff: {
      ...shape({
        from: { ...nullable("string"), description: "the installed package, null before the first publish" },
        to: str,
        added: { ...names, description: "family:id of each definition the publish adds" },
        removed: { ...names, description: "family:id of each definition it drops" },
        changed: listOf(
          shape({
            id: { ...str, description: "family:id, or package for the manifest" },
            before: { description: "the installed definition, normalized" },
            after: { description: "the uploaded definition, normalized" },
          }),
        ),
      }),
      description: "with diff=true: the definitions the publish adds, drops and changes",
    },
  },
  required: ["verdict", "publishable", "blockers"],
} as const;

const manifest = shape({
  name: str,
  version: str,
  collections: names,
  views: names,
  artifacts: names,
  processors: names,
  triggers: names,
  mcp: { ...nullable("string"), description: "the MCP interface (name@version), or null" },
  search_profiles: names,
  optional_search_profiles: names,
  retentions: listOf(shape({ name: str, collection: str, after_days: int, cron: str, max_pages: int })),
});

const pruneReport = shape({
  package: str,
  candidates: listOf(
    shape({
      definition: { ...str, description: "family:name@version (family:name for unversioned families)" },
      listed: bool,
      references: names,
      reference_kind: { enum: ["records", "definitions", "records_and_definitions", "none"] },
      safe_to_delete: bool,
    }),
  ),
  safe_to_delete: { ...names, description: "the candidates nothing references" },
});

export const PUBLISH_CATALOG: RouteContract = {
  method: "POST",
  url: "/catalog",
  schema: {
    summary: "Publish a catalog package (or check it with dry_run=true)",
    tags,
    body: publishBody,
    querystring: {
      type: "object",
      properties: {
        dry_run: { type: "boolean" },
        diff: {
          type: "boolean",
          description:
            "with dry_run: also answer diff, the definitions added, removed and changed against the installed catalog",
        },
      },
      additionalProperties: false,
    },
    response: {
      200: {
        oneOf: [
          shape({
            workspace: str,
            package: str,
            catalog_hash: str,
            files: { type: "object", additionalProperties: str },
            loaded: { const: true },
            rewritten_records: int,
            warnings,
          }),
          compatibility,
        ],
      },
    },
  },
};

export const DESCRIBE_CATALOG: RouteContract = {
  method: "GET",
  url: "/catalog",
  schema: {
    summary: "The installed package, catalog hash and metadata",
    tags,
    response: {
      200: shape({
        package: str,
        catalog_hash: str,
        metadata: shape({
          installed_at: timestamp,
          definitions: {
            type: "object",
            additionalProperties: str,
            description: "definition id to its hash",
          },
          counts: { type: "object", additionalProperties: int, description: "definitions per family" },
        }),
      }),
    },
  },
};

export const CATALOG_DEFINITIONS: RouteContract = {
  method: "GET",
  url: "/catalog/definitions",
  schema: {
    summary: "The installed package's manifest and every definition it lists, normalized",
    tags,
    response: {
      200: shape({
        package: str,
        catalog_hash: str,
        manifest,
        definitions: {
          ...mapOf({ ...anyObject, description: "a definition as the publish normalized it (open)" }),
          description:
            "every listed definition by family:id, as GET /catalog's metadata.definitions names them",
        },
      }),
    },
  },
};

export const CATALOG_COMPATIBILITY: RouteContract = {
  method: "GET",
  url: "/catalog/compatibility",
  schema: {
    summary: "Compatibility report of the installed catalog",
    tags,
    response: { 200: compatibility },
  },
};

export const CATALOG_PRUNE: RouteContract = {
  method: "GET",
  url: "/catalog/prune",
  schema: {
    summary: "Read-only report of definitions that could be deleted",
    tags,
    response: { 200: pruneReport },
  },
};
