// The artifact routes (docs/api.md "Artifacts and feedback"): render, snapshot, the current
// snapshot, uses and their feedback, each with its request and its reply.
import { FEEDBACK_KINDS, FEEDBACK_SOURCES } from "../artifacts/index.js";
import type { Config } from "../config/index.js";
import { shape } from "./closed-object.js";
import { freshnessEntry } from "./derivations.js";
import type { RouteContract } from "./route.js";
import {
  bool,
  idParams,
  int,
  listOf,
  mapOf,
  nameParams,
  orNull,
  str,
  timestamp,
  uuid,
} from "./schema-parts.js";

const tags = ["artifacts"];

const parameters = {
  type: "object",
  additionalProperties: true,
  description: "the artifact's parameters at top level; GET /artifacts lists each artifact's parameters",
} as const;

const blockManifest = shape({ record_ids: listOf(uuid), tokens: int, truncated: bool });

const manifest = shape({
  artifact: shape({ name: str, version: int, definition_hash: str }),
  package: shape({ name: str, version: str, hash: str }),
  catalog_hash: str,
  record_ids: listOf(uuid),
  blocks: mapOf(blockManifest),
  // The freshness of GET /document, per entity a document block read.
  freshness: listOf(shape({ entity: str, ...freshnessEntry })),
  truncated: bool,
  tokens: int,
});

const render = shape({ content: str, manifest });

const snapshot = shape({ snapshot_id: uuid, record_id: uuid, content: str, manifest, created_at: timestamp });

const learningTarget = shape({
  artifact: shape({ name: str, version: int, definition_hash: str, kind: str }),
  entity: str,
  block: str,
  heads: listOf(shape({ collection: str, key: str, record_id: uuid, run_id: { type: ["string", "null"] } })),
  base_run_id: { type: ["string", "null"] },
});

const useMetadata = {
  id: uuid,
  artifact: shape({ name: str, version: int, definition_hash: str }),
  render_sha256: str,
  snapshot_id: { type: ["string", "null"] },
  learning_target: orNull(learningTarget),
  telemetry: shape({
    "engram.use.id": uuid,
    "engram.artifact.name": str,
    "engram.artifact.version": int,
    "engram.artifact.definition_hash": str,
    "engram.artifact.render_sha256": str,
  }),
  render: shape({ tokens: int, truncated: bool }),
  created_at: timestamp,
  expires_at: timestamp,
  expired: bool,
};

export const RENDER_ARTIFACT: RouteContract = {
  method: "POST",
  url: "/artifacts/:name/render",
  schema: {
    summary: "Render the active version of an artifact: content and manifest",
    tags,
    params: nameParams,
    body: parameters,
    response: { 200: render },
  },
};

export const SNAPSHOT_ARTIFACT: RouteContract = {
  method: "POST",
  url: "/artifacts/:name/snapshot",
  schema: {
    summary: "Render and persist as a keyed record of the artifact's snapshot target",
    tags,
    params: nameParams,
    body: parameters,
    response: { 200: snapshot },
  },
};

export const CURRENT_SNAPSHOT: RouteContract = {
  method: "GET",
  url: "/artifacts/:name",
  schema: {
    summary: "The current snapshot of an artifact for the parameters given as query parameters",
    tags,
    description:
      "The artifact's parameters travel as query parameters (names and types from its declaration, GET /artifacts); they are checked by the artifact, so no query schema is published here.",
    params: nameParams,
    response: { 200: snapshot },
  },
};

export const CREATE_USE: RouteContract = {
  method: "POST",
  url: "/artifacts/:name/uses",
  schema: {
    summary: "Render (and optionally snapshot) an artifact and return a use handle for feedback",
    tags,
    params: nameParams,
    body: {
      type: "object",
      properties: { parameters, snapshot: { type: "boolean", default: false } },
      additionalProperties: false,
    },
    response: { 200: shape({ ...useMetadata, content: str }) },
  },
};

export const GET_USE: RouteContract = {
  method: "GET",
  url: "/artifact-uses/:id",
  schema: {
    summary: "An artifact use's metadata (never the render)",
    tags,
    params: idParams,
    response: { 200: shape(useMetadata) },
  },
};

export type FeedbackLimits = Pick<Config, "maxFeedbackCommentChars" | "maxFeedbackEvidenceChars">;

/** POST /artifact-uses/{id}/feedback: its text fields are as long as the server's limits allow. */
export function submitFeedbackRoute(limits: FeedbackLimits): RouteContract {
  const text = (maxLength: number) => ({ type: "string", maxLength }) as const;
  return {
    method: "POST",
    url: "/artifact-uses/:id/feedback",
    schema: {
      summary: "Report how an artifact use went: one record in learning_signals",
      tags,
      params: idParams,
      body: {
        type: "object",
        properties: {
          kind: { enum: FEEDBACK_KINDS },
          source: { enum: FEEDBACK_SOURCES },
          score: { type: "number", minimum: 0, maximum: 1 },
          label: text(256),
          comment: text(limits.maxFeedbackCommentChars),
          expected: text(limits.maxFeedbackEvidenceChars),
          actual_excerpt: text(limits.maxFeedbackEvidenceChars),
          dedupe_key: { type: "string", minLength: 1, maxLength: 200, pattern: "\\S" },
          execution_refs: { type: "array", maxItems: 8, items: text(256) },
        },
        required: ["kind", "source"],
        additionalProperties: false,
      },
      response: {
        200: shape({
          record_id: uuid,
          ready: bool,
          duplicate: bool,
          collection: str,
          entity: str,
          type: str,
          artifact_use: uuid,
        }),
      },
    },
  };
}
