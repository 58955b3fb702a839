// SQL owned by the erasure module: the reads that find what an erasure removes (its seeds, the
// closure, the entities it empties) and the planner statistics refresh after it. What each
// table's owner forgets is that owner's SQL (src/records, src/derivations, src/worker,
// src/artifacts). Every table reference is scoped by its own workspace_id.

/** Audit types an erasure never removes: the proof that erasures happened. */
export const AUDIT_TYPES = ["erasure", "retention"];

/** Every record of an entity but erasure audits, at most $4 (the bound plus one). */
export const ENTITY_SEEDS = `
  SELECT id FROM records
  WHERE workspace_id = $1 AND entity = $2 AND NOT (collection = '_system' AND type = ANY($3::text[]))
  LIMIT $4`;

/** The named records that exist; _system rows are not erasable by id. */
export const ID_SEEDS = `
  SELECT id FROM records WHERE workspace_id = $1 AND id = ANY($2::uuid[]) AND collection <> '_system'`;

/** Records naming any of $2 as a provenance parent (the partial GIN index on derived_from). */
export const CHILDREN = `
  SELECT id FROM records
  WHERE workspace_id = $1 AND derived_from <> '{}' AND derived_from && $2::uuid[]`;

/** What a closure ($2) holds, by collection and entity (an erasure's dry run). */
export const CLOSURE_COUNTS = `
  SELECT count(DISTINCT entity)::int AS affected_entities,
    (SELECT COALESCE(jsonb_object_agg(c.collection, c.n), '{}'::jsonb) FROM (
      SELECT collection, count(*)::int AS n FROM records
      WHERE workspace_id = $1 AND id = ANY($2::uuid[]) GROUP BY collection) c) AS by_collection
  FROM records WHERE workspace_id = $1 AND id = ANY($2::uuid[])`;

/**
 * The derived records of a closure ($2, less its seeds $3), newest first, at most $4: what a dry
 * run with list=true names, with a line of each one's text.
 */
export const CLOSURE_DERIVED = `
  SELECT id, entity, collection, key, type, left(text, 200) AS text FROM records
  WHERE workspace_id = $1 AND id = ANY($2::uuid[]) AND NOT (id = ANY($3::uuid[]))
  ORDER BY seq DESC LIMIT $4`;

/** Those of $2 that hold no record any more (run after the delete): their names are forgotten. */
export const EMPTIED_ENTITIES = `
  SELECT e.entity FROM unnest($2::text[]) AS e(entity)
  WHERE NOT EXISTS (SELECT 1 FROM records r WHERE r.workspace_id = $1 AND r.entity = e.entity)`;

/**
 * The tables an erasure deletes from or rewrites whose planner statistics sample what it erased:
 * entity names, texts, lexemes (records' search vectors, text_stats, the text cells' index),
 * content values (sorted fields' expression indexes) and job payloads. A table's ANALYZE also
 * samples its expression indexes anew (only without a column list). Not embeddings (vectors hold
 * no words, and an ANALYZE there waits for a seal's index build: src/records/vector-seal.ts) nor
 * record_access or artifact_uses (ids, names of definitions and times). Run outside a
 * transaction: each table is analyzed in a transaction of its own, holding its lock briefly.
 */
export const ANALYZE_ERASED =
  "ANALYZE records, heads, text_stats, runs, derivation_state, cursors, jobs, artifact_snapshots";

/** The time a statistics refresh begins, on the clock jobs' created_at is written by. */
export const STATISTICS_CLOCK = "SELECT clock_timestamp() AS at";
