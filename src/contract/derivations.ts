// The derivation routes (docs/api.md "Derivations, runs and promotion"): POST
// /processors/{name}/run, GET /runs, GET /runs/{id}, POST /promote and POST
// /derivations/{name}/rebind, and the freshness of derived state that GET /document and
// artifact manifests report.
import { SEQ_MAX } from "../platform/input.js";
import { ROW_LIMITS } from "../records/index.js";
import { shape } from "./closed-object.js";
import type { RouteContract } from "./route.js";
import {
  anyObject,
  bool,
  idParams,
  int,
  listOf,
  nameParams,
  orNull,
  str,
  timestamp,
  uuid,
} from "./schema-parts.js";

const tags = ["derivations"];

const entity = {
  type: "string",
  minLength: 1,
  maxLength: ROW_LIMITS.entityChars,
  pattern: "\\S",
  description: "the entity the derivation reads and writes for",
} as const;

export const freshnessEntry = {
  derivation: str,
  watermark_seq: int,
  dirty: bool,
  unready: int,
  job: orNull(shape({ id: uuid, state: { enum: ["queued", "running"] } })),
};

export const freshness = listOf(shape(freshnessEntry));

const runSummaryProperties = {
  id: uuid,
  seq: int,
  operation: { enum: ["derive", "promote"] },
  processor: str,
  derivation: str,
  entity: str,
  source_kind: { enum: ["changes", "snapshot", null] },
  status: { enum: ["running", "succeeded", "failed", "skipped"] },
  failure: {
    enum: [
      "limits",
      "source_too_large",
      "model_unavailable",
      "model_output",
      "emission",
      "cancelled",
      "internal",
      null,
    ],
  },
  job_id: { type: ["string", "null"] },
  source_run_id: { type: ["string", "null"] },
  output_count: int,
  started_at: timestamp,
  finished_at: { type: ["string", "null"], format: "date-time" },
};

const key = { type: ["string", "null"] } as const;

const runDetail = shape({
  ...runSummaryProperties,
  failure_detail: { type: ["string", "null"] },
  package: str,
  catalog_hash: str,
  definition_hash: str,
  config_hash: str,
  model_usage: shape({ calls: int, prompt_tokens: int, completion_tokens: int }),
  content: shape({
    trigger_reasons: listOf(shape({ on: str, trigger: { type: ["string", "null"] } })),
    candidate_set: shape({
      covered_keys: listOf(str),
      divergence: listOf(shape({ key: str, change: { enum: ["added", "changed", "removed", "unchanged"] } })),
    }),
  }),
  read_receipt: { type: ["object", "null"], additionalProperties: true },
  emission: anyObject,
  expected_active_heads: listOf(
    shape({ collection: str, key: str, record_id: { type: ["string", "null"] } }),
  ),
  keyed_divergence: listOf(
    shape({
      key: str,
      expected_record_id: { type: ["string", "null"] },
      actual_record_id: { type: ["string", "null"] },
    }),
  ),
  visible_sources: listOf(anyObject),
  citations: listOf(uuid),
  output_ids: listOf(uuid),
  output_total: int,
  output_offset: int,
  output_limit: int,
  records: listOf(
    shape({
      id: uuid,
      seq: int,
      collection: str,
      key,
      type: str,
      status: { enum: ["active", "draft"] },
      ready: bool,
      tombstone: bool,
      text: str,
      citations: listOf(uuid),
      depth: int,
      occurred_at: timestamp,
      created_at: timestamp,
    }),
  ),
});

export const REQUEST_RUN: RouteContract = {
  method: "POST",
  url: "/processors/:name/run",
  schema: {
    summary: "Queue a derivation run for an entity (coalesced with a queued one); no model call inline",
    tags,
    params: nameParams,
    body: { type: "object", properties: { entity }, required: ["entity"], additionalProperties: false },
    response: { 202: shape({ job_id: uuid, enqueued: bool, coalesced: bool, run_after: timestamp }) },
  },
};

export const LIST_RUNS: RouteContract = {
  method: "GET",
  url: "/runs",
  schema: {
    summary: "Derivation and promotion runs, newest first",
    tags,
    querystring: {
      type: "object",
      properties: {
        entity,
        processor: { type: "string", minLength: 1, maxLength: 64 },
        operation: { enum: ["derive", "promote"] },
        source: { enum: ["changes", "snapshot"] },
        status: { enum: ["running", "succeeded", "failed", "skipped"] },
        limit: { type: "integer", minimum: 1, maximum: 100, default: 20 },
        before_seq: { type: "integer", minimum: 0, maximum: SEQ_MAX },
      },
      additionalProperties: false,
    },
    response: {
      200: shape({
        runs: listOf(shape(runSummaryProperties)),
        next_before_seq: { type: ["integer", "null"] },
        // Scheduled derivations whose last runs all failed under their definition: ticks pass them.
        paused: listOf(
          shape({
            derivation: str,
            failed_runs: int,
            since: timestamp,
            last_failure: runSummaryProperties.failure,
          }),
        ),
      }),
    },
  },
};

export const GET_RUN: RouteContract = {
  method: "GET",
  url: "/runs/:id",
  schema: {
    summary: "One run: hashes, read receipt, emission manifest, sources, citations and its output records",
    tags,
    params: idParams,
    querystring: {
      type: "object",
      properties: {
        output_offset: { type: "integer", minimum: 0, maximum: SEQ_MAX, default: 0 },
        output_limit: { type: "integer", minimum: 1, maximum: 100, default: 100 },
      },
      additionalProperties: false,
    },
    response: { 200: runDetail },
  },
};

export const PROMOTE: RouteContract = {
  method: "POST",
  url: "/promote",
  schema: {
    summary: "Activate a reviewed run's drafts when the live heads still match its read receipt",
    tags,
    body: {
      type: "object",
      properties: {
        entity,
        source_run_id: uuid,
        artifact: {
          type: "string",
          minLength: 1,
          maxLength: 64,
          description: "the reviewed artifact's name",
        },
      },
      required: ["entity", "source_run_id", "artifact"],
      additionalProperties: false,
    },
    response: {
      200: shape({
        promotion_run_id: uuid,
        source_run_id: uuid,
        entity: str,
        promoted: listOf(shape({ key: str, draft_id: uuid, record_id: uuid })),
        already_promoted: bool,
      }),
    },
  },
};

export const REBIND: RouteContract = {
  method: "POST",
  url: "/derivations/:name/rebind",
  schema: {
    summary: "Repoint a derivation's changes watermark for an entity after a source change",
    tags,
    params: nameParams,
    body: {
      type: "object",
      properties: { entity, policy: { enum: ["reset", "carry"] } },
      required: ["entity", "policy"],
      additionalProperties: false,
    },
    response: {
      200: shape({
        derivation: str,
        entity: str,
        policy: { enum: ["reset", "carry"] },
        old_source_hash: { type: ["string", "null"] },
        new_source_hash: str,
        watermark_seq: int,
        audit_id: uuid,
      }),
    },
  },
};
