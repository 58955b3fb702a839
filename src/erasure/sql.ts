// SQL owned by the erasure module: the closure, the removal and the keyed heads it restores.

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

export const DELETE_RECORDS = `
  DELETE FROM records WHERE workspace_id = $1 AND id = ANY($2::uuid[])
  RETURNING entity, collection, key, status`;

/**
 * The access marks of removed records (run after the delete): record_access has no foreign key
 * (migration 0017); a search marking one of them held its lock until it committed, so its mark
 * is visible here.
 */
export const DELETE_MARKS =
  "DELETE FROM record_access WHERE workspace_id = $1 AND record_id = ANY($2::uuid[])";

const SLOTS = "jsonb_to_recordset($2::jsonb) AS s(entity text, collection text, key text, status text)";

/** Heads whose record was removed; returns their slots. */
export const DROP_HEADS = `
  DELETE FROM heads h USING ${SLOTS}
  WHERE h.workspace_id = $1 AND h.entity = s.entity AND h.collection = s.collection AND h.key = s.key
    AND h.status = s.status
    AND NOT EXISTS (SELECT 1 FROM records r WHERE r.workspace_id = h.workspace_id AND r.id = h.record_id)
  RETURNING h.entity, h.collection, h.key, h.status`;

/** The newest remaining row of each slot becomes its head again (a slot with none has no head). */
export const RESTORE_HEADS = `
  INSERT INTO heads (workspace_id, entity, collection, key, status, record_id, seq, tombstone)
  SELECT $1, s.entity, s.collection, s.key, s.status, r.id, r.seq, r.tombstone
  FROM ${SLOTS}
  CROSS JOIN LATERAL (
    SELECT id, seq, tombstone FROM records r
    WHERE r.workspace_id = $1 AND r.entity = s.entity AND r.collection = s.collection AND r.key = s.key
      AND r.status = s.status
    ORDER BY r.seq DESC LIMIT 1) r`;

/**
 * Queued enrichment jobs keep only the ids whose record still exists (run after the delete):
 * one primary-key probe per queued id, whatever the size of the erasure.
 */
const KEPT = `EXISTS (SELECT 1 FROM records r WHERE r.workspace_id = $1 AND r.id = ids.id::uuid)`;

export const FORGET_ENRICHMENT = `
  UPDATE jobs SET updated_at = now(), payload = jsonb_set(payload, '{record_ids}', COALESCE((
    SELECT jsonb_agg(ids.id) FROM jsonb_array_elements_text(payload->'record_ids') AS ids(id) WHERE ${KEPT}),
    '[]'::jsonb))
  WHERE workspace_id = $1 AND kind = $2 AND state = 'queued' AND EXISTS (
    SELECT 1 FROM jsonb_array_elements_text(payload->'record_ids') AS ids(id) WHERE NOT ${KEPT})`;

/** ...and one left with nothing to enrich is cancelled. */
export const CANCEL_EMPTY_ENRICHMENT = `
  UPDATE jobs SET state = 'cancelled', finished_at = now(), updated_at = now(),
    last_error = 'cancelled: its records were erased'
  WHERE workspace_id = $1 AND kind = $2 AND state = 'queued' AND payload->'record_ids' = '[]'::jsonb`;

/** The index-deletion job keeps only the count once done: erased ids do not outlive it. */
export const CLEAR_INDEX_PAYLOAD = `
  UPDATE jobs SET payload = jsonb_build_object('records', jsonb_array_length(payload->'record_ids'))
  WHERE workspace_id = $1 AND id = $2`;
