// Response bodies as the OpenAPI document publishes them. Replies are written with
// JSON.stringify (app.ts), so these schemas describe and never filter what is sent; the test
// suite checks every reply it receives against the schema of its route and status.

import { JOB_STATES } from "../worker/queue.js";
import { KEY_SCOPES } from "../workspaces/index.js";
import { ANSWER_RESPONSES } from "./answer-responses.js";
import { ARTIFACT_RESPONSES } from "./artifact-responses.js";
import { DERIVATION_RESPONSES, freshness } from "./derivation-responses.js";
import { DISCOVERY_RESPONSES } from "./discovery-responses.js";
import {
  anyObject,
  bool,
  int,
  listOf,
  nullable,
  num,
  type Schema,
  str,
  timestamp,
  uuid,
} from "./schema-parts.js";
import { shape } from "./shape.js";

const record = shape({
  id: uuid,
  seq: int,
  collection: str,
  collection_version: int,
  collection_hash: str,
  entity: str,
  type: str,
  key: nullable("string"),
  status: { enum: ["active", "draft"] },
  ready: bool,
  tombstone: bool,
  text: str,
  content: anyObject,
  scores: anyObject,
  annotations: anyObject,
  citations: listOf(uuid),
  derived_from: listOf(uuid),
  depth: int,
  run_id: { type: ["string", "null"] },
  occurred_at: timestamp,
  created_at: timestamp,
});

const compactRow = {
  type: "object",
  properties: {
    id: uuid,
    seq: int,
    collection: str,
    key: nullable("string"),
    type: str,
    status: str,
    ready: bool,
    tombstone: bool,
    text: str,
    occurred_at: timestamp,
    created_at: timestamp,
  },
  required: ["id", "seq", "collection", "key", "type", "status", "ready", "tombstone", "text"],
} as const;

const page = (name: string, items: Schema) =>
  shape({ [name]: listOf(items), next_before_seq: nullable("integer"), truncated: bool });

const backendEntry = {
  type: "object",
  properties: { name: str, layout: str, candidate_count: int, source: str },
  required: ["name", "layout", "candidate_count"],
} as const;

/**
 * A node of an explained rank (`explain.rank`, src/search/explain.ts): a rank expression node
 * with its value for the hit, or a wrapper above the expression (rrf, boost, graph_boost,
 * rerank). `args` holds nodes of this same shape (rrf's hold one source each).
 */
const RANK_OPERATORS = ["sum", "max", "product", "normalize", "saturate", "decay"];
const rankTreeNode = {
  type: "object",
  properties: {
    op: { enum: [...RANK_OPERATORS, "rrf", "boost", "graph_boost", "rerank"] },
    signal: { enum: ["similarity", "text_match", "score", "age_hours"] },
    const: num,
    name: { ...str, description: "score: the stored score's name" },
    field: { ...str, description: "age_hours: the timestamp" },
    factor: num,
    midpoint: num,
    exponent: num,
    min: { ...num, description: "normalize: the smallest value of its argument across the candidates" },
    max: { ...num, description: "normalize: the largest value of its argument across the candidates" },
    rank_constant: int,
    weight: num,
    distance: { ...int, description: "graph_boost: links from the anchor" },
    model: str,
    judged: { ...bool, description: "rerank: whether the judge saw the record (else its value is 0)" },
    source: { ...str, description: "an rrf argument: the source" },
    source_rank: int,
    rank: { ...anyObject, description: "an rrf argument: the source's explained rank" },
    order_by: listOf(anyObject),
    value: { ...num, description: "the node's value for this hit; the root's is the hit's rank_score" },
    args: listOf({ ...anyObject, description: "child nodes, of this same shape" }),
  },
  required: ["value"],
  additionalProperties: false,
} as const;

/** A hit's `explain` (SearchSpec `explain: true`, `POST /views/{name}/query?explain=true`). */
const hitExplain = shape(
  {
    signals: shape({
      similarity: nullable("number"),
      text_match: nullable("number"),
      age_hours: shape({ created_at: num, occurred_at: num, last_accessed: num }),
      scores: { type: "object", additionalProperties: num },
    }),
    rank: rankTreeNode,
    order_by: listOf(shape({ field: str, direction: { enum: ["asc", "desc"] }, value: {} })),
    proposed_by: listOf({ enum: ["vector", "text", "recent", "structured"] }),
    source_ranks: { type: "object", additionalProperties: int },
  },
  ["rank", "order_by", "source_ranks"],
);

const searchResponse = {
  type: "object",
  properties: {
    hits: listOf({
      type: "object",
      properties: {
        id: uuid,
        rank: int,
        score: nullable("number"),
        rank_score: num,
        source_ranks: anyObject,
        explain: {
          ...hitExplain,
          description: "only when asked for (explain: true): why the hit ranks where it does",
        },
      },
      required: ["id", "rank", "score"],
    }),
    ranking: anyObject,
    rendered: nullable("string"),
    truncated: bool,
    backend: listOf(backendEntry),
    profiles: listOf(str),
    rerank: anyObject,
    graph_boost: anyObject,
  },
  required: ["hits", "ranking", "rendered", "truncated", "backend", "profiles"],
} as const;

const viewIdentity = {
  view: shape({ name: str, version: int, hash: str }),
  parameters: anyObject,
  input_record_ids: listOf(uuid),
};

/** A search view: the search response without its rerank and graph_boost diagnostics, plus the view. */
const { rerank: _rerank, graph_boost: _graphBoost, ...searchViewFields } = searchResponse.properties;
const searchViewResponse = shape({ ...searchViewFields, ...viewIdentity });

/** A link a walk used (graph views answer them as both hits and citations). */
const graphLink = shape({
  id: uuid,
  text: str,
  subject: str,
  object: str,
  predicate: nullable("string"),
  content: anyObject,
});
const graphViewResponse = shape({
  ...viewIdentity,
  hits: listOf(graphLink),
  nodes: listOf(str),
  paths: listOf(shape({ nodes: listOf(str), edge_ids: listOf(uuid), depth: int })),
  citations: listOf(graphLink),
  truncated: bool,
  profiles: listOf(str),
  backend: listOf(backendEntry),
});

/** A node no walkable link names (graph_orphans views answer them as both hits and orphans). */
const orphanNode = shape({ id: uuid, entity: str, key: nullable("string"), text: str, content: anyObject });
const graphOrphansViewResponse = shape({
  ...viewIdentity,
  hits: listOf(orphanNode),
  orphans: listOf(orphanNode),
  truncated: bool,
  profiles: listOf(str),
  backend: listOf(backendEntry),
});

/** The reply of a view by its kind (MCP view tools answer exactly their kind's). */
export const VIEW_RESPONSES = {
  search: searchViewResponse,
  graph: graphViewResponse,
  graph_orphans: graphOrphansViewResponse,
} as const;

/** POST /views/{name}/query answers the reply of the view's kind. */
const viewResponse = { anyOf: Object.values(VIEW_RESPONSES) };

const compatibility = {
  type: "object",
  properties: {
    verdict: { enum: ["invisible", "additive", "reinterpreting"] },
    publishable: bool,
    blockers: listOf(anyObject),
    changes: listOf(anyObject),
  },
  required: ["verdict", "publishable", "blockers"],
} as const;

const job = shape({
  id: uuid,
  kind: str,
  state: { enum: [...JOB_STATES] },
  attempts: int,
  max_attempts: int,
  run_after: timestamp,
  lease: { oneOf: [{ type: "null" }, shape({ owner: str, expires_at: timestamp })] },
  last_error: nullable("string"),
  successful_run_id: { type: ["string", "null"] },
  created_at: timestamp,
  updated_at: timestamp,
  finished_at: { type: ["string", "null"], format: "date-time" },
});

const backfill = {
  type: "object",
  properties: {
    id: uuid,
    state: str,
    cursor_seq: int,
    scanned: int,
    annotated: int,
    last_error: nullable("string"),
    collection: str,
    version: int,
    processor: str,
    max_rows: nullable("integer"),
  },
  required: [
    "id",
    "state",
    "cursor_seq",
    "scanned",
    "annotated",
    "last_error",
    "collection",
    "version",
    "processor",
  ],
} as const;

/** The success body of each route, by method and URL as registered. */
export const RESPONSES: Record<string, { status: number; schema: Schema }> = {
  "POST /records": {
    status: 200,
    schema: shape({
      inserted: listOf(shape({ index: int, id: uuid, ready: bool })),
      duplicates: listOf(shape({ index: int, id: uuid })),
      job_id: {
        ...nullable("string"),
        format: "uuid",
        description: "the enrichment job queued (GET /jobs/{id}), or null",
      },
    }),
  },
  "GET /records/:id": { status: 200, schema: record },
  "GET /timeline": { status: 200, schema: page("records", compactRow) },
  "GET /document": {
    status: 200,
    schema: shape({
      entity: str,
      status: str,
      beliefs: listOf(
        shape({
          collection: str,
          collection_version: int,
          key: str,
          type: str,
          text: str,
          id: uuid,
          citations: listOf(uuid),
          status: str,
          ready: bool,
          occurred_at: timestamp,
          created_at: timestamp,
        }),
      ),
      retractions: listOf(shape({ collection: str, key: str, id: uuid, seq: int })),
      freshness,
    }),
  },
  "GET /document/history": {
    status: 200,
    schema: page(
      "versions",
      shape({
        id: uuid,
        seq: int,
        collection: str,
        collection_version: int,
        collection_hash: str,
        key: str,
        type: str,
        status: str,
        content: anyObject,
        tombstone: bool,
        ready: bool,
        run_id: nullable("string"),
        citations: listOf(uuid),
        depth: int,
        occurred_at: timestamp,
        created_at: timestamp,
      }),
    ),
  },
  "GET /delta": {
    status: 200,
    schema: shape({ records: listOf(compactRow), next_cursor: int, scope_hash: str }),
  },
  "POST /cursor": {
    status: 200,
    schema: shape({
      consumer: str,
      entity: nullable("string"),
      position: int,
      scope_hash: str,
      updated_at: timestamp,
    }),
  },
  "POST /search": { status: 200, schema: searchResponse },
  "GET /search": { status: 200, schema: searchResponse },
  "POST /views/:name/query": { status: 200, schema: viewResponse },
  "POST /catalog": {
    status: 200,
    schema: {
      oneOf: [
        shape({
          workspace: str,
          package: str,
          catalog_hash: str,
          files: { type: "object", additionalProperties: str },
          loaded: { const: true },
          rewritten_records: int,
        }),
        compatibility,
      ],
    },
  },
  "GET /catalog": {
    status: 200,
    schema: shape({
      package: str,
      catalog_hash: str,
      metadata: shape({
        installed_at: timestamp,
        definitions: { type: "object", additionalProperties: str, description: "definition id to its hash" },
        counts: { type: "object", additionalProperties: int, description: "definitions per family" },
      }),
    }),
  },
  "GET /catalog/compatibility": { status: 200, schema: compatibility },
  "POST /backfill": { status: 202, schema: backfill },
  "GET /backfill": { status: 200, schema: shape({ backfills: listOf(backfill) }) },
  "GET /backfill/:id": { status: 200, schema: backfill },
  "POST /backfill/:id/cancel": { status: 200, schema: backfill },
  "POST /reindex": {
    status: 200,
    schema: shape({ mode: str, target_count: int, enqueued_jobs: int }),
  },
  "POST /erase": {
    status: 200,
    schema: {
      oneOf: [
        shape({ audit_id: uuid, deleted: int, affected_entities: int, index_delete_job_id: uuid }),
        shape({
          dry_run: { const: true },
          deleted: int,
          affected_entities: int,
          by_collection: { type: "object", additionalProperties: int },
          derived: { ...int, description: "of deleted, the records pulled in through derived_from" },
        }),
      ],
    },
  },
  "GET /jobs": {
    status: 200,
    schema: shape({
      jobs: listOf(job),
      next_before: {
        ...nullable("string"),
        description: "pass as before for the next page; null on the last",
      },
    }),
  },
  "GET /jobs/:id": { status: 200, schema: job },
  "GET /records/:id/cited-by": {
    status: 200,
    schema: shape({ records: listOf(record), next_before_seq: nullable("integer") }),
  },
  "GET /workspace": {
    status: 200,
    schema: shape({
      id: uuid,
      name: str,
      created_at: timestamp,
      counts: shape({
        records: int,
        entities: int,
        unready: int,
        jobs: shape(Object.fromEntries(JOB_STATES.map((state) => [state, int]))),
      }),
      oldest_unready_at: { type: ["string", "null"], format: "date-time" },
      key: shape({
        id: uuid,
        name: str,
        scope: { enum: [...KEY_SCOPES] },
        expires_at: { type: ["string", "null"], format: "date-time" },
      }),
      limits: shape({
        max_batch_records: { ...int, description: "rows one POST /records takes (MAX_BATCH_RECORDS)" },
        max_body_bytes: { ...int, description: "the largest request body, in bytes (larger gets 413)" },
      }),
    }),
  },
  "GET /entities": {
    status: 200,
    schema: shape({
      entities: listOf(shape({ entity: str, records: int, last_seq: int, last_at: timestamp })),
      next_after: nullable("string"),
    }),
  },
  "POST /jobs/:id/retry": { status: 200, schema: job },
  ...DISCOVERY_RESPONSES,
  ...DERIVATION_RESPONSES,
  ...ARTIFACT_RESPONSES,
  ...ANSWER_RESPONSES,
};
