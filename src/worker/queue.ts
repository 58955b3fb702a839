// The durable job queue: enqueue inside the caller's transaction; claim with FOR UPDATE SKIP
// LOCKED; leases with expiry and heartbeat; retries with backoff; a dead state; coalescing.
// (pg-boss was considered: its singletonKey send answers null for a coalesced request instead
// of the live job's id, and its jobs carry no workspace, so the queue is our own.)
import { randomUUID } from "node:crypto";
import type { Queryable } from "../platform/db/index.js";
import { AppError } from "../platform/errors.js";

/** Channel that wakes workers when work is queued (LISTEN/NOTIFY; in-process on PGlite). */
export const JOBS_CHANNEL = "engram_jobs";

export interface EnqueueRequest {
  workspaceId: string;
  kind: string;
  payload: Record<string, unknown>;
  /** Live work with the same key is not queued twice: the queued job is returned instead. */
  coalesceKey?: string;
  /** Not before this time (default now). A coalesced request moves the queued job earlier, never later. */
  runAfter?: Date;
}

export interface EnqueueResult {
  jobId: string;
  coalesced: boolean;
  runAfter: Date;
}

/** Every state a job can be in (the jobs table's check constraint). */
export const JOB_STATES = ["queued", "running", "succeeded", "dead", "cancelled"] as const;
export type JobState = (typeof JOB_STATES)[number];

export interface Job {
  workspace_id: string;
  id: string;
  kind: string;
  state: JobState;
  payload: Record<string, unknown>;
  attempts: number;
  max_attempts: number;
  run_after: Date;
  lease_owner: string | null;
  lease_expires_at: Date | null;
  last_error: string | null;
  successful_run_id: string | null;
  created_at: Date;
  updated_at: Date;
  finished_at: Date | null;
}

/**
 * Queues a job, or joins the queued job with the same coalesce key, in one statement. ON CONFLICT
 * DO UPDATE cannot lose a race: when a worker claims the queued job between the conflict check and
 * the update, PostgreSQL re-checks the arbiter index and inserts instead (DO NOTHING followed by a
 * separate join found no queued row there). $2 is the id a new job gets, so an answer with another
 * id is a join.
 */
const ENQUEUE = `
  INSERT INTO jobs (workspace_id, id, kind, payload, coalesce_key, run_after)
  VALUES ($1, $2, $3, $4, $5, COALESCE($6, now()))
  ON CONFLICT (workspace_id, coalesce_key) WHERE coalesce_key IS NOT NULL AND state = 'queued'
  DO UPDATE SET run_after = LEAST(jobs.run_after, excluded.run_after), updated_at = now()
  RETURNING id, run_after`;

const NOTIFY = `SELECT pg_notify('${JOBS_CHANNEL}', '')`;

/**
 * Claims due jobs, and running jobs whose lease expired (a dead worker's), oldest first. A queued
 * job waits while live work with its coalesce key runs, so one key's work never runs twice at once.
 * The pick is a MATERIALIZED CTE so that it runs once: as an IN subquery the planner may rescan
 * it, and each rescan of a LIMIT ... SKIP LOCKED pick can add other rows (PGlite claimed 3 jobs
 * for a limit of 2).
 */
const CLAIM = `
  WITH picked AS MATERIALIZED (
    SELECT workspace_id, id FROM jobs j
    WHERE kind = ANY($3::text[])
      AND ((state = 'queued' AND run_after <= now()) OR (state = 'running' AND lease_expires_at < now()))
      AND (j.coalesce_key IS NULL OR j.state = 'running' OR NOT EXISTS (
        SELECT 1 FROM jobs live WHERE live.workspace_id = j.workspace_id AND live.coalesce_key = j.coalesce_key
          AND live.state = 'running' AND live.lease_expires_at >= now()))
    ORDER BY run_after
    LIMIT $4
    FOR UPDATE SKIP LOCKED)
  UPDATE jobs SET state = 'running', lease_owner = $1, lease_expires_at = now() + make_interval(secs => $2),
    attempts = attempts + 1, updated_at = now()
  FROM picked WHERE jobs.workspace_id = picked.workspace_id AND jobs.id = picked.id
  RETURNING jobs.*`;

const HEARTBEAT = `
  UPDATE jobs SET lease_expires_at = now() + make_interval(secs => $4), updated_at = now()
  WHERE workspace_id = $1 AND id = $2 AND lease_owner = $3 AND state = 'running'`;

/** Locks the job row if this worker still holds its lease: the fence every commit passes. */
const FENCE = `
  SELECT id FROM jobs WHERE workspace_id = $1 AND id = $2 AND lease_owner = $3 AND state = 'running'
  FOR UPDATE`;

const SUCCEED = `
  UPDATE jobs SET state = 'succeeded', lease_owner = NULL, lease_expires_at = NULL, finished_at = now(),
    updated_at = now(), last_error = NULL, successful_run_id = $4
  WHERE workspace_id = $1 AND id = $2 AND lease_owner = $3 AND state = 'running'`;

/** A failure that a retry cannot cure (bad output, a bound, a catalog rule): dead at once. */
const KILL = `
  UPDATE jobs SET state = $5, lease_owner = NULL, lease_expires_at = NULL, last_error = $4,
    finished_at = now(), updated_at = now()
  WHERE workspace_id = $1 AND id = $2 AND lease_owner = $3 AND state = 'running'`;

const FAIL = `
  UPDATE jobs SET
    state = CASE WHEN attempts >= max_attempts THEN 'dead' ELSE 'queued' END,
    run_after = now() + make_interval(secs => $5), lease_owner = NULL, lease_expires_at = NULL,
    last_error = $4, updated_at = now(),
    finished_at = CASE WHEN attempts >= max_attempts THEN now() ELSE NULL END
  WHERE workspace_id = $1 AND id = $2 AND lease_owner = $3 AND state = 'running'
  RETURNING state`;

/** Hands leased jobs back untouched (graceful shutdown): the attempt does not count. */
const RELEASE = `
  UPDATE jobs SET state = 'queued', lease_owner = NULL, lease_expires_at = NULL, run_after = now(),
    attempts = greatest(attempts - 1, 0), updated_at = now()
  WHERE lease_owner = $1 AND state = 'running'`;

const GET_JOB = "SELECT * FROM jobs WHERE workspace_id = $1 AND id = $2";

const RETRY = `
  UPDATE jobs SET state = 'queued', attempts = 0, run_after = now(), finished_at = NULL, updated_at = now()
  WHERE workspace_id = $1 AND id = $2 AND state = 'dead'
  RETURNING *`;

export class LeaseLostError extends Error {
  constructor(jobId: string) {
    super(`the lease on job ${jobId} was lost (expired and taken over); its work is rolled back`);
    this.name = "LeaseLostError";
  }
}

export async function enqueue(tx: Queryable, request: EnqueueRequest): Promise<EnqueueResult> {
  const newId = randomUUID();
  const { rows } = await tx.query<{ id: string; run_after: Date }>(ENQUEUE, [
    request.workspaceId,
    newId,
    request.kind,
    JSON.stringify(request.payload),
    request.coalesceKey ?? null,
    request.runAfter ?? null,
  ]);
  const job = rows[0] as { id: string; run_after: Date };
  const coalesced = job.id !== newId;
  // Delivered when the caller's transaction commits; nothing is announced on rollback.
  if (!coalesced) await tx.query(NOTIFY);
  return { jobId: job.id, coalesced, runAfter: job.run_after };
}

export async function claimJobs(
  db: Queryable,
  claim: { owner: string; kinds: string[]; leaseSeconds: number; limit: number },
): Promise<Job[]> {
  const { rows } = await db.query<Job>(CLAIM, [claim.owner, claim.leaseSeconds, claim.kinds, claim.limit]);
  return rows;
}

export async function heartbeat(
  db: Queryable,
  job: Job,
  owner: string,
  leaseSeconds: number,
): Promise<boolean> {
  return (await db.query(HEARTBEAT, [job.workspace_id, job.id, owner, leaseSeconds])).rowCount > 0;
}

/** Inside a transaction: throws LeaseLostError unless this worker still holds the job. */
export async function fence(tx: Queryable, job: Job, owner: string): Promise<void> {
  const { rows } = await tx.query(FENCE, [job.workspace_id, job.id, owner]);
  if (rows.length === 0) throw new LeaseLostError(job.id);
}

export async function succeed(
  tx: Queryable,
  job: Job,
  owner: string,
  runId: string | null = null,
): Promise<void> {
  const { rowCount } = await tx.query(SUCCEED, [job.workspace_id, job.id, owner, runId]);
  if (rowCount === 0) throw new LeaseLostError(job.id);
  // The claimed job keeps the state its end wrote: the worker reports how the attempt ended.
  job.state = "succeeded";
}

/**
 * Inside the handler's last transaction: ends the job without a retry, `dead` (a failure a retry
 * cannot cure; POST /jobs/{id}/retry requeues it) or `cancelled` (its work was held off).
 */
export async function endJob(
  tx: Queryable,
  job: Job,
  owner: string,
  end: { state: "dead" | "cancelled"; error: string },
): Promise<void> {
  const { rowCount } = await tx.query(KILL, [
    job.workspace_id,
    job.id,
    owner,
    end.error.slice(0, 2000),
    end.state,
  ]);
  if (rowCount === 0) throw new LeaseLostError(job.id);
  job.state = end.state;
}

/** Exponential backoff between attempts: 2 s, 4 s, 8 s … capped at 5 minutes. */
export function backoffSeconds(attempts: number): number {
  return Math.min(300, 2 ** Math.max(1, attempts));
}

export async function failJob(
  db: Queryable,
  job: Job,
  owner: string,
  error: string,
): Promise<Job["state"] | undefined> {
  const { rows } = await db.query<{ state: Job["state"] }>(FAIL, [
    job.workspace_id,
    job.id,
    owner,
    error.slice(0, 2000),
    backoffSeconds(job.attempts),
  ]);
  return rows[0]?.state;
}

export async function releaseLeases(db: Queryable, owner: string): Promise<number> {
  return (await db.query(RELEASE, [owner])).rowCount;
}

export async function getJob(db: Queryable, workspaceId: string, id: string): Promise<Job> {
  const job = /^[0-9a-f-]{36}$/i.test(id)
    ? (await db.query<Job>(GET_JOB, [workspaceId, id])).rows[0]
    : undefined;
  if (!job) throw new AppError("not_found", `no job ${id}`);
  return job;
}

/** POST /jobs/{id}/retry: a dead job is queued again with a fresh attempt budget. */
export async function retryJob(db: Queryable, workspaceId: string, id: string): Promise<Job> {
  const job = await getJob(db, workspaceId, id);
  const { rows } = await db.query<Job>(RETRY, [workspaceId, job.id]);
  if (!rows[0]) {
    throw new AppError("job_not_retryable", `job ${id} is ${job.state}; only a dead job can be retried`, {
      state: job.state,
    });
  }
  await db.query(NOTIFY);
  return rows[0];
}

/** The public view of a job (GET /jobs/{id}). */
export function describeJob(job: Omit<Job, "workspace_id" | "payload">) {
  return {
    id: job.id,
    kind: job.kind,
    state: job.state,
    attempts: job.attempts,
    max_attempts: job.max_attempts,
    run_after: job.run_after,
    lease: job.lease_owner ? { owner: job.lease_owner, expires_at: job.lease_expires_at } : null,
    last_error: job.last_error,
    successful_run_id: job.successful_run_id,
    created_at: job.created_at,
    updated_at: job.updated_at,
    finished_at: job.finished_at,
  };
}
