// The artifacts module's statements: snapshots, uses, purge and what an erasure changes (erasure.ts).

export const INSERT_SNAPSHOT = `
  INSERT INTO artifact_snapshots (workspace_id, id, record_id, artifact, version, manifest)
  VALUES ($1, $2, $3, $4, $5, $6) RETURNING created_at`;

/** The snapshot whose record is the current active head of the slot (not a tombstone). */
export const CURRENT_SNAPSHOT = `
  SELECT s.id, s.record_id, s.manifest, s.created_at, r.text
  FROM heads h
  JOIN records r ON r.workspace_id = $1 AND r.id = h.record_id
  JOIN artifact_snapshots s ON s.workspace_id = $1 AND s.record_id = r.id
  WHERE h.workspace_id = $1 AND h.entity = $2 AND h.collection = $3 AND h.key = $4
    AND h.status = 'active' AND NOT r.tombstone`;

// Whether it expired is read outside the INSERT: Citus takes no STABLE call in a RETURNING clause.
export const INSERT_USE = `
  WITH inserted AS (
    INSERT INTO artifact_uses (workspace_id, id, artifact, version, definition_hash, render_sha256,
      snapshot_id, learning_target, render_tokens, render_truncated, expires_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, now() + make_interval(secs => $11))
    RETURNING created_at, expires_at)
  SELECT created_at, expires_at, expires_at <= now() AS expired FROM inserted`;

export const GET_USE = `
  SELECT id, artifact, version, definition_hash, render_sha256, snapshot_id, learning_target,
    render_tokens, render_truncated, created_at, expires_at, expires_at <= now() AS expired
  FROM artifact_uses WHERE workspace_id = $1 AND id = $2`;

/** At most $1 expired uses, oldest first, across workspaces. */
export const PURGE_USES = `
  DELETE FROM artifact_uses WHERE (workspace_id, id) IN (
    SELECT workspace_id, id FROM artifact_uses WHERE expires_at <= now() ORDER BY expires_at LIMIT $1)`;

/**
 * Erasure: learning targets forget erased heads (feedback would otherwise cite records that no
 * longer exist); a target left without heads becomes null, as for a render that read none.
 */
export const FORGET_TARGET_HEADS = `
  UPDATE artifact_uses u SET learning_target = CASE WHEN kept.heads = '[]'::jsonb THEN NULL
    ELSE jsonb_set(u.learning_target, '{heads}', kept.heads) END
  FROM (
    SELECT a.workspace_id, a.id, COALESCE(jsonb_agg(h.head) FILTER (WHERE NOT ((h.head->>'record_id')::uuid = ANY($2::uuid[]))), '[]'::jsonb) AS heads
    FROM artifact_uses a CROSS JOIN LATERAL jsonb_array_elements(a.learning_target->'heads') AS h(head)
    WHERE a.workspace_id = $1 AND a.learning_target IS NOT NULL
    GROUP BY a.workspace_id, a.id
    HAVING bool_or((h.head->>'record_id')::uuid = ANY($2::uuid[]))
  ) kept
  WHERE u.workspace_id = $1 AND u.id = kept.id`;

/**
 * Erasure: uses naming a snapshot that no longer exists. Every use of the workspace with a
 * snapshot is looked at (uses expire after ARTIFACT_USE_RETENTION_DAYS), so a reference an
 * earlier erasure left behind goes too.
 */
export const FORGET_SNAPSHOTS = `
  UPDATE artifact_uses u SET snapshot_id = NULL
  WHERE u.workspace_id = $1 AND u.snapshot_id IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM artifact_snapshots s WHERE s.workspace_id = $1 AND s.id = u.snapshot_id)`;

/** Erasure: learning targets on an entity whose records are all gone: the target names the entity. */
export const FORGET_ENTITY_TARGETS = `
  UPDATE artifact_uses SET learning_target = NULL
  WHERE workspace_id = $1 AND learning_target IS NOT NULL AND learning_target->>'entity' = ANY($2::text[])`;
