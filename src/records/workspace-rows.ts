// The per-workspace rows the records module keeps outside records: the counters row
// (workspace_counters: the record sequence that LOCK_SEQ serializes writers on, and whether the
// term statistics are built), created with the workspace and continued by an import, and the
// access marks, which hold no foreign key and so go by hand when a workspace is deleted.
import type { Queryable } from "../platform/db/index.js";
import * as sql from "./sql.js";

/** A new workspace's counters, in the transaction creating it. */
export async function createCounters(tx: Queryable, workspaceId: string): Promise<void> {
  await tx.query(sql.INSERT_COUNTER, [workspaceId]);
}

/** An import's workspace: the sequence continues after `lastSeq`; term statistics are rebuilt once. */
export async function continueCounters(tx: Queryable, workspaceId: string, lastSeq: number): Promise<void> {
  await tx.query(sql.CONTINUE_COUNTER, [workspaceId, lastSeq]);
}

/** A deleted workspace's access marks (after its records went). */
export async function deleteWorkspaceMarks(tx: Queryable, workspaceId: string): Promise<void> {
  await tx.query(sql.DELETE_WORKSPACE_MARKS, [workspaceId]);
}
