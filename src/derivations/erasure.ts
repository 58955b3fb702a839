// What an erasure (src/erasure) changes in derivation work, inside its transaction, which holds the
// workspace's seq lock that every run commit takes first:
// - the entities it touches are held off: queued jobs are cancelled and a run in flight is fenced
//   (its commit compares the pair's generation, run.ts), so nothing is written from evidence that
//   no longer exists; erasing a whole entity also forgets its runs and watermarks;
// - runs in flight for a held entity lose their job (cancelled, its lease taken: the run's later
//   transactions fail their fence, src/worker/queue.ts, and write nothing, not even its read
//   receipt) and end failed/cancelled;
// - a forgotten entity (the erased one, or one whose last record went) loses its derivation state
//   and runs; deleting the state is safe for the generation fence because no run of the entity is
//   left in flight to compare against it; its derivation jobs lose its name;
// - runs of entities that keep records forget the erased ids (scrubbed, not deleted: their
//   surviving output names them as its run, which a derivation's own-output rule relies on).
import type { Queryable } from "../platform/db/index.js";
import { cancelQueuedJobs, cancelRunningJobs, forgetJobEntities } from "../worker/index.js";
import { DERIVE_JOB } from "./queue.js";
import * as sql from "./sql.js";

/** The error text a held-off derivation job ends with (tests look for "erasure"). */
const HELD_OFF = "cancelled: an erasure held off this entity's derivation work";
const RUN_HELD_OFF = "an erasure held this run off while it was working; nothing was written";
const ENTITY_GONE = "cancelled: an erasure removed this job's entity";

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
  return cancelQueuedJobs(tx, { workspaceId, kind: DERIVE_JOB, entities: scope.entities, error: HELD_OFF });
}

/** Cancels the derivation jobs running for these entities and ends their runs; returns how many. */
export async function stopRunningDerivations(
  tx: Queryable,
  workspaceId: string,
  entities: string[],
): Promise<number> {
  if (entities.length === 0) return 0;
  const jobIds = await cancelRunningJobs(tx, { workspaceId, kind: DERIVE_JOB, entities, error: HELD_OFF });
  if (jobIds.length > 0) await tx.query(sql.CANCEL_STOPPED_RUNS, [workspaceId, jobIds, RUN_HELD_OFF]);
  return jobIds.length;
}

/** Forgotten entities lose their derivation state and run audits. */
export async function forgetDerivationState(
  tx: Queryable,
  workspaceId: string,
  entities: string[],
): Promise<void> {
  if (entities.length === 0) return;
  await tx.query(sql.FORGET_ENTITIES_STATE, [workspaceId, entities]);
  await tx.query(sql.FORGET_ENTITIES_RUNS, [workspaceId, entities]);
}

/** Forgotten entities' derivation jobs, in every state, lose the entity (their error text too). */
export async function forgetDerivationJobs(
  tx: Queryable,
  workspaceId: string,
  entities: string[],
): Promise<void> {
  if (entities.length === 0) return;
  await forgetJobEntities(tx, { workspaceId, kind: DERIVE_JOB, entities, error: ENTITY_GONE });
}

/**
 * The run audits of these (surviving) entities forget the erased ids; an error text naming one is
 * replaced by `errorText`.
 */
export async function scrubRuns(
  tx: Queryable,
  workspaceId: string,
  erased: { entities: string[]; ids: string[]; errorText: string },
): Promise<void> {
  if (erased.entities.length === 0 || erased.ids.length === 0) return;
  await tx.query(sql.SCRUB_RUNS, [
    workspaceId,
    erased.entities,
    erased.ids.map((id) => id.toLowerCase()),
    erased.errorText,
  ]);
}
