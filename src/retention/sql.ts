// SQL owned by the retention module.

/** Every workspace, in a stable order: a retention pass looks at each one's policies. */
export const WORKSPACE_IDS = "SELECT id FROM workspaces ORDER BY id";

/**
 * One page of eligible slots: the active head is a tombstone of the policy's collection version
 * written before the cutoff. A later live successor is the head instead, so its slot never matches.
 */
export const ELIGIBLE_SLOTS = `
  SELECT h.entity, h.key, h.seq FROM heads h
  JOIN records r ON r.workspace_id = $1 AND r.id = h.record_id
  WHERE h.workspace_id = $1 AND h.collection = $2 AND h.status = 'active' AND h.tombstone
    AND r.collection_version = $3 AND r.created_at < $4
  ORDER BY h.seq LIMIT $5`;

/** Every row of those slots up to their tombstone (newer drafts are left alone). */
export const SLOT_ROWS = `
  SELECT r.id FROM jsonb_to_recordset($2::jsonb) AS s(entity text, key text, seq bigint)
  JOIN records r ON r.workspace_id = $1 AND r.entity = s.entity AND r.collection = $3 AND r.key = s.key
    AND r.seq <= s.seq`;
