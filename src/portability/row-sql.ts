// SQL fragments of the row kinds (kinds.ts) and of an import's row writer (rows.ts), composed into
// the export and import statements by sql.ts's builders. Apart from sql.ts, which reads the row
// kinds' type: the kinds are built from these.

/** Rows of one entity: the entity column is the entity's parameter. */
export const ofEntitySql = (param: string) => `t.entity = ${param}`;

/** Rows keyed by a record id: those of the entity's records ($1 is always the workspace). */
export const ofEntityRecordSql = (param: string) =>
  `EXISTS (SELECT 1 FROM records r WHERE r.workspace_id = $1 AND r.id = t.record_id AND r.entity = ${param})`;

/** The full-text vector in tsvector's text form, which reads back exactly (weights, positions). */
export const SEARCH_TEXT_EXPORT = "t.search_text::text";

/** The vector as a JSON array of numbers whatever the column type (pgvector's text form is one). */
export const embeddingExportSql = (vectorColumn: boolean) =>
  vectorColumn ? "t.embedding::text::json" : "to_json(t.embedding)";

/**
 * A record line's columns where the import re-embeds it (l.x1): imported unready, with no search
 * projection, as a new write would be.
 */
export const REEMBEDDED_RECORD = {
  ready: "p.ready AND NOT l.x1",
  search_text: "CASE WHEN l.x1 THEN NULL ELSE p.search_text END",
  search_length: "CASE WHEN l.x1 THEN NULL ELSE p.search_length END",
  search_config: "CASE WHEN l.x1 THEN NULL ELSE p.search_config END",
};

/** REEMBEDDED_RECORD's per-line flag (l.x1): one boolean per line, the statement's third parameter. */
export const REEMBED_FLAGS = "$3::boolean[]";

/** An embedding line is stored deferred where its space's index takes vectors in bulk later. */
export const DEFERRED_EMBEDDING = `EXISTS (SELECT 1 FROM vector_indexes x WHERE x.space = p.space
            AND x.dimensions = vector_dims(p.embedding))`;
