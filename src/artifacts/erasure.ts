// What erasure changes in artifact state beyond records: snapshot rows go with their record (a
// cascading foreign key), and a use's learning target forgets the erased heads it names.
import type { Queryable } from "../platform/db/index.js";
import * as sql from "./sql.js";

export async function forgetErasedHeads(tx: Queryable, workspaceId: string, ids: string[]): Promise<void> {
  if (ids.length > 0) await tx.query(sql.FORGET_TARGET_HEADS, [workspaceId, ids]);
}
