// What erasure changes in artifact state beyond records (run after the records went, in the
// erasure's transaction): snapshot rows go with their record (a cascading foreign key); a use
// whose snapshot went forgets it (snapshot_id null, as for a use made without a snapshot: the use,
// its render hash and feedback on it stay valid); a use's learning target forgets the erased heads
// it names, and a target on an entity that is gone, or left without heads, becomes null (as for a
// render whose learning block read no active head). The statements below are the erasure's, on
// this module's tables.
import type { Queryable } from "../platform/db/index.js";
import * as sql from "./sql.js";

/**
 * Uses naming a snapshot that no longer exists. Every use of the workspace with a snapshot is
 * looked at (uses expire after ARTIFACT_USE_RETENTION_DAYS), so a reference an earlier erasure
 * left behind goes too.
 */
const FORGET_SNAPSHOTS = `
  UPDATE artifact_uses u SET snapshot_id = NULL
  WHERE u.workspace_id = $1 AND u.snapshot_id IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM artifact_snapshots s WHERE s.workspace_id = $1 AND s.id = u.snapshot_id)`;

/** Learning targets on an entity whose records are all gone: the target names the entity. */
const FORGET_ENTITY_TARGETS = `
  UPDATE artifact_uses SET learning_target = NULL
  WHERE workspace_id = $1 AND learning_target IS NOT NULL AND learning_target->>'entity' = ANY($2::text[])`;

export async function forgetErased(
  tx: Queryable,
  workspaceId: string,
  erased: { ids: string[]; entities: string[] },
): Promise<void> {
  if (erased.ids.length === 0 && erased.entities.length === 0) return;
  await tx.query(FORGET_SNAPSHOTS, [workspaceId]);
  if (erased.ids.length > 0) await tx.query(sql.FORGET_TARGET_HEADS, [workspaceId, erased.ids]);
  if (erased.entities.length > 0) await tx.query(FORGET_ENTITY_TARGETS, [workspaceId, erased.entities]);
}
