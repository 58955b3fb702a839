// What erasure changes in artifact state beyond records (run after the records went, in the
// erasure's transaction): snapshot rows go with their record (a cascading foreign key); a use
// whose snapshot went forgets it (snapshot_id null, as for a use made without a snapshot: the use,
// its render hash and feedback on it stay valid); a use's learning target forgets the erased heads
// it names, and a target on an entity that is gone, or left without heads, becomes null (as for a
// render whose learning block read no active head). The statements are in sql.ts.
import type { Queryable } from "../platform/db/index.js";
import * as sql from "./sql.js";

export async function forgetErased(
  tx: Queryable,
  workspaceId: string,
  erased: { ids: string[]; entities: string[] },
): Promise<void> {
  if (erased.ids.length === 0 && erased.entities.length === 0) return;
  await tx.query(sql.FORGET_SNAPSHOTS, [workspaceId]);
  if (erased.ids.length > 0) await tx.query(sql.FORGET_TARGET_HEADS, [workspaceId, erased.ids]);
  if (erased.entities.length > 0) await tx.query(sql.FORGET_ENTITY_TARGETS, [workspaceId, erased.entities]);
}
