// What the modules that queue jobs read and change in them later, by coalesce key or by what their
// payloads carry (a derivation job's entity and trigger reasons, an enrichment job's record_ids):
// the statements are the worker's, the only module writing the jobs table; the kinds, payload
// meanings and error texts are the callers'. Each runs inside the caller's transaction.
import type { Queryable } from "../platform/db/index.js";
import * as sql from "./sql.js";

/** The jobs of one kind in a workspace whose payload names one of these entities. */
export interface EntityJobs {
  workspaceId: string;
  kind: string;
  entities: string[];
  /** The error text the jobs end with (or that replaces theirs). */
  error: string;
}

/** The queued or running job with this coalesce key, if any. */
export async function liveJob(
  db: Queryable,
  workspaceId: string,
  coalesceKey: string,
): Promise<{ id: string; state: string } | undefined> {
  return (await db.query<{ id: string; state: string }>(sql.LIVE_JOB, [workspaceId, coalesceKey])).rows[0];
}

/** The oldest queued or running job of this kind in the workspace, if any. */
export async function openJobOfKind(
  db: Queryable,
  workspaceId: string,
  kind: string,
): Promise<{ id: string; state: string } | undefined> {
  return (await db.query<{ id: string; state: string }>(sql.OPEN_JOB_OF_KIND, [workspaceId, kind])).rows[0];
}

/** Adds reasons to the payload of a queued job a new request coalesced into. */
export async function mergeReasons(
  tx: Queryable,
  job: { workspaceId: string; jobId: string; reasons: unknown[] },
): Promise<void> {
  await tx.query(sql.MERGE_REASONS, [job.workspaceId, job.jobId, JSON.stringify(job.reasons)]);
}

/** Of the queued jobs with these coalesce keys, the entities of those whose reasons hold `reason`. */
export async function queuedWithReason(
  tx: Queryable,
  workspaceId: string,
  queued: { coalesceKeys: string[]; reason: unknown },
): Promise<string[]> {
  const { rows } = await tx.query<{ entity: string }>(sql.QUEUED_WITH_REASON, [
    workspaceId,
    queued.coalesceKeys,
    JSON.stringify([queued.reason]),
  ]);
  return rows.map((row) => row.entity);
}

/** Cancels the queued jobs of these entities; returns how many. */
export async function cancelQueuedJobs(tx: Queryable, jobs: EntityJobs): Promise<number> {
  const { workspaceId, kind, entities, error } = jobs;
  return (await tx.query(sql.CANCEL_QUEUED, [workspaceId, kind, entities, error])).rowCount;
}

/** Cancels the running jobs of these entities, their leases taken; returns their ids. */
export async function cancelRunningJobs(tx: Queryable, jobs: EntityJobs): Promise<string[]> {
  const { workspaceId, kind, entities, error } = jobs;
  const { rows } = await tx.query<{ id: string }>(sql.CANCEL_RUNNING, [workspaceId, kind, entities, error]);
  return rows.map((row) => row.id);
}

/** The jobs of these (forgotten) entities, in every state, lose the entity's name. */
export async function forgetJobEntities(tx: Queryable, jobs: EntityJobs): Promise<void> {
  const { workspaceId, kind, entities, error } = jobs;
  await tx.query(sql.FORGET_ENTITY, [workspaceId, kind, entities, error]);
}

/**
 * Jobs of a kind forget these record ids from their payload's record_ids (queued ones, and
 * finished ones created at one of `createdAt`); a queued one left with none is cancelled.
 */
export async function forgetJobRecords(
  tx: Queryable,
  jobs: { workspaceId: string; kind: string; ids: string[]; createdAt: string[]; error: string },
): Promise<void> {
  const { workspaceId, kind } = jobs;
  await tx.query(sql.FORGET_RECORD_IDS, [
    workspaceId,
    kind,
    jobs.ids.map((id) => id.toLowerCase()),
    jobs.createdAt,
    jobs.error,
  ]);
  await tx.query(sql.CANCEL_EMPTIED, [workspaceId, kind]);
}

/** A job whose payload lists record ids keeps only their count. */
export async function keepRecordCount(
  tx: Queryable,
  job: { workspace_id: string; id: string },
): Promise<void> {
  await tx.query(sql.KEEP_RECORD_COUNT, [job.workspace_id, job.id]);
}
