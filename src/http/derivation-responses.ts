// Response bodies of the derivation routes and the document's freshness (responses.ts merges
// them into RESPONSES).
import { anyObject, bool, int, listOf, orNull, type Schema, str, timestamp, uuid } from "./schema-parts.js";
import { shape } from "./shape.js";

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

export const DERIVATION_RESPONSES: Record<string, { status: number; schema: Schema }> = {
  "POST /processors/:name/run": {
    status: 202,
    schema: shape({ job_id: uuid, enqueued: bool, coalesced: bool, run_after: timestamp }),
  },
  "GET /runs": {
    status: 200,
    schema: shape({
      runs: listOf(shape(runSummaryProperties)),
      next_before_seq: { type: ["integer", "null"] },
    }),
  },
  "GET /runs/:id": { status: 200, schema: runDetail },
  "POST /promote": {
    status: 200,
    schema: shape({
      promotion_run_id: uuid,
      source_run_id: uuid,
      entity: str,
      promoted: listOf(shape({ key: str, draft_id: uuid, record_id: uuid })),
      already_promoted: bool,
    }),
  },
  "POST /derivations/:name/rebind": {
    status: 200,
    schema: shape({
      derivation: str,
      entity: str,
      policy: { enum: ["reset", "carry"] },
      old_source_hash: { type: ["string", "null"] },
      new_source_hash: str,
      watermark_seq: int,
      audit_id: uuid,
    }),
  },
};
