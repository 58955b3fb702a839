// What an erasure (src/erasure) changes in the records module's tables, inside its transaction
// under the workspace's seq lock: the records go with their share of the term statistics and
// their access marks (embeddings, search projection and artifact snapshots go with them by foreign
// key); the keyed slots they headed get their newest remaining row back as head; replay cursors
// scoped to a forgotten entity are deleted.
import type { Queryable } from "../platform/db/index.js";
import * as sql from "./sql.js";
import { countSearchable, uncountSearchable } from "./text-stats.js";
import { erasedLeads, promoteCopies } from "./vector-leads.js";

/** A removed record's keyed slot. */
export interface Slot {
  entity: string;
  collection: string;
  key: string | null;
  status: string;
}

export interface RemovedRecord extends Slot {
  /** created_at as text, exact to the microsecond (sql.DELETE_RECORDS). */
  created_at: string;
}

/**
 * Deletes the records and their access marks, promoting a copy of each vector whose lead they
 * held (src/records/vector-leads.ts); their share of the workspace's term statistics goes
 * first (the rows locked, so an enrichment of one commits first). Returns the removed rows.
 */
export async function removeRecords(
  tx: Queryable,
  workspaceId: string,
  ids: string[],
): Promise<RemovedRecord[]> {
  await uncountSearchable(tx, workspaceId, ids, { current: true, lock: true });
  if (ids.length === 0) return [];
  const leads = await erasedLeads(tx, workspaceId, ids);
  const { rows } = await tx.query<RemovedRecord>(sql.DELETE_RECORDS, [workspaceId, ids]);
  await tx.query(sql.DELETE_MARKS, [workspaceId, ids]);
  await promoteCopies(tx, workspaceId, leads);
  return rows;
}

/** The keyed slots the removed rows held, once each. */
function slotsOf(rows: Slot[]): Slot[] {
  const slots = new Map<string, Slot>();
  for (const row of rows) {
    if (row.key !== null) slots.set(JSON.stringify([row.entity, row.collection, row.key, row.status]), row);
  }
  return [...slots.values()];
}

/**
 * Slots whose head was removed get the newest remaining row of the slot as head (none: no head),
 * counted as searchable again. Returns how many heads were restored.
 */
export async function restoreHeads(tx: Queryable, workspaceId: string, removed: Slot[]): Promise<number> {
  const slots = slotsOf(removed);
  if (slots.length === 0) return 0;
  const dropped = await tx.query<Slot>(sql.DROP_HEADS, [workspaceId, JSON.stringify(slots)]);
  if (dropped.rows.length === 0) return 0;
  const restored = await tx.query<{ record_id: string }>(sql.RESTORE_HEADS, [
    workspaceId,
    JSON.stringify(dropped.rows),
  ]);
  await countSearchable(
    tx,
    workspaceId,
    restored.rows.map((row) => row.record_id),
  );
  return restored.rowCount;
}

/** Replay cursors scoped to these forgotten entities are deleted. */
export async function forgetCursors(tx: Queryable, workspaceId: string, entities: string[]): Promise<void> {
  if (entities.length === 0) return;
  await tx.query(sql.FORGET_CURSORS, [workspaceId, entities]);
}
