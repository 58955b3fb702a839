// Erasure holds off derivation work for the entities it touches: queued jobs are cancelled and a
// run in flight is fenced (its commit compares the pair's generation, run.ts), so nothing is
// written from evidence that no longer exists. Erasing a whole entity also forgets its runs and
// watermarks. Called inside the erasure's transaction, which holds the workspace's seq lock that
// every run commit takes first.
import type { Queryable } from "../platform/db/index.js";
import { DERIVE_JOB } from "./queue.js";
import * as sql from "./sql.js";

/** Returns the number of queued derivation jobs cancelled. */
export async function holdOffDerivations(
  tx: Queryable,
  workspaceId: string,
  scope: { entities: string[]; forgetEntity?: string },
): Promise<number> {
  if (scope.entities.length === 0) return 0;
  await tx.query(sql.HOLD_OFF_STATE, [workspaceId, scope.entities]);
  if (scope.forgetEntity !== undefined) {
    await tx.query(sql.FORGET_STATE, [workspaceId, scope.forgetEntity]);
    await tx.query(sql.FORGET_RUNS, [workspaceId, scope.forgetEntity]);
  }
  const cancelled = await tx.query(sql.CANCEL_QUEUED, [
    workspaceId,
    DERIVE_JOB,
    scope.entities,
    "cancelled: an erasure held off this entity's derivation work",
  ]);
  return cancelled.rowCount;
}
