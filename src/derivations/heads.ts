// The active heads of a derivation's emission collection for one entity: the basis a run reads
// (its read receipt) and what promotion checks again before it writes.
import type { EmitDef } from "../catalog/index.js";
import type { Queryable } from "../platform/db/index.js";
import type { BasisHead } from "./emission.js";
import * as sql from "./sql.js";

/** Most heads one receipt captures (an emission without declared keys could touch many). */
export const RECEIPT_HEADS_MAX = 2000;

export async function activeHeads(
  db: Queryable,
  workspaceId: string,
  entity: string,
  emit: Pick<EmitDef, "collection" | "keys">,
): Promise<Map<string, BasisHead>> {
  const { rows } = await db.query<BasisHead>(sql.ACTIVE_HEADS, [
    workspaceId,
    entity,
    emit.collection,
    emit.keys,
    RECEIPT_HEADS_MAX,
  ]);
  return new Map(rows.map((row) => [row.key, row]));
}

/** Heads as the audit lists them: {collection, key, record_id}, by key. */
export function listHeads(collection: string, heads: Map<string, BasisHead>) {
  return [...heads.values()]
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((head) => ({ collection, key: head.key, record_id: head.record_id, tombstone: head.tombstone }));
}
