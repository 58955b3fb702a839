// The row kinds of an engram.export/v1 stream (docs/export.md): which table each comes from, the
// columns a line carries (named as the table names them, so an import reads a line back with
// jsonb_populate_record over the table's own row type), the unique key an export pages by, and
// which rows belong to one entity. Kinds are listed in dependency order: a row's references are
// on earlier lines. A test holds every column of every per-workspace table to this list, so a
// migration that adds one must decide here what the format carries.
import { embeddingExportSql, ofEntityRecordSql, ofEntitySql, SEARCH_TEXT_EXPORT } from "./row-sql.js";

export interface RowKind {
  /** The line's `kind`. */
  name: string;
  table: string;
  /** The columns a line carries, in this order; workspace_id never (the importer's replaces it). */
  columns: readonly string[];
  /** Export expressions over the table (alias t) where a column is not written as it is stored. */
  expressions?: Readonly<Record<string, string>>;
  /** Columns left out: details of the storing database, assigned again by the importing one. */
  omitted?: readonly string[];
  /** A unique key (an index's order within the workspace) the export pages by. */
  key: readonly string[];
  /**
   * The rows of one entity (`--entity`), given the entity's parameter; null when an entity export
   * leaves the kind out (workspace-wide operations that may name other entities' records).
   */
  entity: ((param: string) => string) | null;
}

export const RECORD: RowKind = {
  name: "record",
  table: "records",
  columns: [
    "id",
    "seq",
    "collection",
    "collection_version",
    "collection_hash",
    "entity",
    "type",
    "key",
    "status",
    "ready",
    "tombstone",
    "text",
    "content",
    "scores",
    "annotations",
    "citations",
    "derived_from",
    "depth",
    "run_id",
    "dedupe_key",
    "payload_hash",
    "occurred_at",
    "created_at",
    "search_text",
    "search_length",
    "search_config",
  ],
  expressions: { search_text: SEARCH_TEXT_EXPORT },
  key: ["seq"],
  entity: ofEntitySql,
};

export const HEAD: RowKind = {
  name: "head",
  table: "heads",
  columns: ["entity", "collection", "key", "status", "record_id", "seq", "tombstone"],
  key: ["entity", "collection", "key", "status"],
  entity: ofEntitySql,
};

export const RECORD_ACCESS: RowKind = {
  name: "record_access",
  table: "record_access",
  columns: ["record_id", "last_accessed"],
  key: ["record_id"],
  entity: ofEntityRecordSql,
};

export const CURSOR: RowKind = {
  name: "cursor",
  table: "cursors",
  columns: ["consumer", "entity", "position", "scope_hash", "updated_at"],
  key: ["consumer"],
  entity: ofEntitySql,
};

export const DERIVATION_STATE: RowKind = {
  name: "derivation_state",
  table: "derivation_state",
  columns: [
    "derivation",
    "entity",
    "watermark_seq",
    "source_hash",
    "generation",
    "last_queued_at",
    "last_run_id",
    "updated_at",
  ],
  key: ["derivation", "entity"],
  entity: ofEntitySql,
};

export const RUN: RowKind = {
  name: "run",
  table: "runs",
  // seq is exported (the order) but numbered again on import: it is an identity column drawn
  // from one sequence of the whole database.
  columns: [
    "id",
    "seq",
    "operation",
    "derivation",
    "entity",
    "source_kind",
    "status",
    "failure",
    "failure_detail",
    "job_id",
    "source_run_id",
    "trigger_reasons",
    "package",
    "catalog_hash",
    "definition_hash",
    "config_hash",
    "read_receipt",
    "emission",
    "visible_sources",
    "citations",
    "output_ids",
    "usage",
    "started_at",
    "finished_at",
  ],
  key: ["seq"],
  entity: ofEntitySql,
};

export const TRIGGER_TICK: RowKind = {
  name: "trigger_tick",
  table: "trigger_ticks",
  columns: ["trigger", "last_tick"],
  key: ["trigger"],
  entity: null,
};

export const BACKFILL: RowKind = {
  name: "backfill",
  table: "backfills",
  columns: [
    "id",
    "collection",
    "version",
    "processor",
    "max_rows",
    "state",
    "cursor_seq",
    "scanned",
    "annotated",
    "cancel_requested",
    "last_error",
    "job_id",
    "created_at",
    "updated_at",
  ],
  key: ["id"],
  entity: null,
};

export const ARTIFACT_SNAPSHOT: RowKind = {
  name: "artifact_snapshot",
  table: "artifact_snapshots",
  columns: ["id", "record_id", "artifact", "version", "manifest", "created_at"],
  key: ["id"],
  entity: null,
};

export const ARTIFACT_USE: RowKind = {
  name: "artifact_use",
  table: "artifact_uses",
  columns: [
    "id",
    "artifact",
    "version",
    "definition_hash",
    "render_sha256",
    "snapshot_id",
    "learning_target",
    "render_tokens",
    "render_truncated",
    "created_at",
    "expires_at",
  ],
  key: ["id"],
  entity: null,
};

export const EMBEDDING = "embedding";

/** Embedding lines carry the vector as a JSON array of numbers (row-sql.ts). */
export function embeddingKind(vectorColumn: boolean): RowKind {
  return {
    name: EMBEDDING,
    table: "embeddings",
    columns: ["record_id", "space", "embedding", "created_at"],
    expressions: { embedding: embeddingExportSql(vectorColumn) },
    // Where the vector sits in the database's own index upkeep (src/records/vector-seal.ts,
    // src/records/vector-leads.ts): the importing database computes its own.
    omitted: ["seq", "deferred", "lead", "vhash"],
    key: ["record_id", "space"],
    entity: ofEntityRecordSql,
  };
}

/** The kinds a stream holds, in its order; the embeddings (embeddingKind) come after them. */
export const TABLE_KINDS: readonly RowKind[] = [
  RECORD,
  HEAD,
  RECORD_ACCESS,
  CURSOR,
  DERIVATION_STATE,
  RUN,
  TRIGGER_TICK,
  BACKFILL,
  ARTIFACT_SNAPSHOT,
  ARTIFACT_USE,
];

/** Every row kind's name, in stream order. */
export const KIND_ORDER: readonly string[] = [...TABLE_KINDS.map((kind) => kind.name), EMBEDDING];

/**
 * Per-workspace tables no line carries: the workspace row and its counter (the header and the
 * importer's own), keys and their uses (never exported: the importing workspace has its own), catalog installs
 * (in the header), the job queue (work in flight; enrichment is queued again on import) and the
 * term statistics (derived; rebuilt on import).
 */
export const NOT_EXPORTED: readonly string[] = [
  "workspaces",
  "workspace_counters",
  "workspace_keys",
  "workspace_key_uses",
  "catalog_installs",
  "jobs",
  "text_stats",
];
