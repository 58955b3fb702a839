// Shapes of the API answers the console reads (see /openapi.json for the full contract).

export interface WorkspaceInfo {
  id: string;
  name: string;
  created_at: string;
  oldest_unready_at?: string | null;
  counts: { records: number; entities: number; unready: number; jobs: Record<string, number> };
  /** The key signed in (never the key itself). */
  key: { id: string; name: string; scope: "read_write" | "read_only"; expires_at: string | null };
}

/** A background job as GET /jobs and GET /jobs/{id} answer it. */
export interface Job {
  id: string;
  kind: string;
  state: string;
  attempts: number;
  max_attempts: number;
  run_after: string;
  /** The worker holding it while it runs, and until when. */
  lease: { owner: string; expires_at: string } | null;
  last_error: string | null;
  successful_run_id: string | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

export interface JobPage {
  jobs: Job[];
  next_before: string | null;
}

/** GET /catalog: the active package (404 no_catalog before the first publish). */
export interface CatalogSummary {
  package: string;
  catalog_hash: string;
  metadata: { installed_at: string; definitions: Record<string, string>; counts: Record<string, number> };
}

// Search and views (pages/search.tsx, pages/views.tsx).

/** A search request (SPEC "Search request"); the console edits it as plain JSON. */
export type SearchSpec = Record<string, unknown>;

/**
 * One node of an explained rank expression (src/search/rank-eval.ts RankTree, explain.ts):
 * a signal, a constant or an operator with its value for the hit, and wrappers (rrf over
 * sources, boost, graph_boost, rerank) above the expression.
 */
export interface RankTreeNode {
  op?: string;
  signal?: string;
  const?: number;
  source?: string;
  value: number;
  args?: RankTreeNode[];
  rank?: RankTreeNode;
  order_by?: OrderValue[];
  [option: string]: unknown;
}

export interface OrderValue {
  field: string;
  direction: string;
  value: unknown;
}

export interface HitExplain {
  signals?: {
    similarity: number | null;
    text_match: number | null;
    age_hours?: Record<string, number>;
    scores?: Record<string, number>;
  };
  rank?: RankTreeNode;
  order_by?: OrderValue[];
  proposed_by?: string[];
  source_ranks?: Record<string, number>;
  [more: string]: unknown;
}

export interface SearchHit {
  id: string;
  rank: number;
  score: number | null;
  rank_score?: number;
  source_ranks?: Record<string, number>;
  text?: string;
  collection?: string;
  entity?: string;
  type?: string;
  key?: string | null;
  fields?: Record<string, unknown>;
  scores?: Record<string, number>;
  explain?: HitExplain;
  [field: string]: unknown;
}

export interface SearchResponse {
  hits: SearchHit[];
  ranking?: { kind: string; scored: boolean; [more: string]: unknown };
  rendered?: string | null;
  truncated?: boolean;
  backend?: { name: string; layout: string; candidate_count: number; source?: string }[];
  profiles?: string[];
  [more: string]: unknown;
}

/** A JSON Schema property of a view's input_schema (the subset the parameter form reads). */
export interface SchemaProperty {
  type?: string | string[];
  description?: string;
  enum?: unknown[];
  items?: { type?: string; enum?: unknown[] };
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  format?: string;
}

/** A discovery entry of GET /views. */
export interface ViewEntry {
  name: string;
  version: number;
  hash: string;
  active: boolean;
  kind: "search" | "graph" | "graph_orphans";
  parameters: Record<string, { type: string; required: boolean; default?: unknown }>;
  input_schema: { type: "object"; properties: Record<string, SchemaProperty>; required?: string[] };
  collections: string[];
  required_capabilities: string[];
  profiles: string[];
}

export interface GraphEdge {
  id: string;
  text?: string;
  subject: string;
  object: string;
  predicate: string;
  content?: unknown;
}

export interface GraphNodeRecord {
  id: string;
  entity: string;
  key: string | null;
  text?: string;
  content?: unknown;
}

/** POST /views/{name}/query: a search view's answer, a graph's or an orphans' (SPEC "Graph views"). */
export interface ViewResponse {
  view: { name: string; version: number; hash: string };
  parameters: Record<string, unknown>;
  hits: unknown[];
  input_record_ids: string[];
  nodes?: string[];
  paths?: { nodes: string[]; edge_ids: string[]; depth: number }[];
  citations?: GraphEdge[];
  orphans?: GraphNodeRecord[];
  truncated?: boolean;
  [more: string]: unknown;
}

// Entities, entity, record and erase pages.

export interface EntityRow {
  entity: string;
  records: number;
  last_seq: number;
  last_at: string | null;
}

export interface EntityList {
  entities: EntityRow[];
  next_after: string | null;
}

export interface Belief {
  collection: string;
  collection_version: number;
  key: string;
  type: string;
  text: string;
  id: string;
  citations: string[];
  status: string;
  ready: boolean;
  occurred_at: string | null;
  created_at: string;
}

export interface Retraction {
  collection: string;
  key: string;
  id: string;
  seq: number;
}

export interface Freshness {
  derivation: string;
  watermark_seq: number;
  dirty: boolean;
  unready: number;
  job: { id: string; state: string } | null;
}

export interface EntityDocument {
  entity: string;
  status: string;
  beliefs: Belief[];
  retractions: Retraction[];
  freshness: Freshness[];
}

export interface TimelineRow {
  id: string;
  seq: number;
  collection: string;
  key: string | null;
  type: string;
  status: string;
  ready: boolean;
  tombstone: boolean;
  text: string;
  occurred_at?: string | null;
  created_at?: string;
}

export interface TimelinePage {
  records: TimelineRow[];
  next_before_seq: number | null;
  truncated: boolean;
}

export interface HistoryVersion {
  id: string;
  seq: number;
  collection: string;
  collection_version: number;
  key: string;
  type: string;
  status: string;
  content: unknown;
  tombstone: boolean;
  ready: boolean;
  run_id: string | null;
  citations: string[];
  depth: number;
  occurred_at: string | null;
  created_at: string;
}

export interface HistoryPage {
  versions: HistoryVersion[];
  next_before_seq: number | null;
}

/** GET /records/{id}: one record with all its fields. */
export interface FullRecord {
  id: string;
  seq: number;
  collection: string;
  collection_version: number;
  collection_hash: string;
  entity: string;
  type: string;
  key: string | null;
  status: string;
  ready: boolean;
  tombstone: boolean;
  text: string;
  content: unknown;
  scores: Record<string, number>;
  annotations: Record<string, unknown>;
  citations: string[];
  derived_from: string[];
  depth: number;
  run_id: string | null;
  occurred_at: string | null;
  created_at: string;
}

export interface CitedByPage {
  records: FullRecord[];
  next_before_seq: number | null;
}

/** A derivation run as GET /runs lists it (GET /runs/{id} adds its audit). */
export interface RunSummary {
  id: string;
  seq: number;
  operation: "derive" | "promote";
  processor: string;
  derivation: string;
  entity: string;
  source_kind: "changes" | "snapshot" | null;
  status: "running" | "succeeded" | "failed" | "skipped";
  failure: string | null;
  job_id: string | null;
  source_run_id: string | null;
  output_count: number;
  started_at: string;
  finished_at: string | null;
}

export interface RunList {
  runs: RunSummary[];
  next_before_seq: number | null;
}

export interface ArtifactSummary {
  name: string;
  version: number;
  active: boolean;
  lifecycle: string;
  candidate: { derivation: string; keys: string[] } | null;
}

export interface PromoteResult {
  promotion_run_id: string;
  source_run_id: string;
  entity: string;
  promoted: { key: string; draft_id: string; record_id: string }[];
  already_promoted: boolean;
}

export interface ErasePreview {
  dry_run: true;
  deleted: number;
  affected_entities: number;
  by_collection: Record<string, number>;
  derived: number;
}

export interface EraseAudit {
  audit_id: string;
  deleted: number;
  affected_entities: number;
  index_delete_job_id: string;
}
