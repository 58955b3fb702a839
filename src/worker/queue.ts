// The durable job queue: enqueue inside the caller's transaction; claim with FOR UPDATE SKIP
// LOCKED, fairly across workspaces (turns: sql.ts, docs/operations.md "The job queue"); leases
// with expiry and heartbeat; retries with backoff; a dead state; coalescing.
// (pg-boss was considered: its singletonKey send answers null for a coalesced request instead
// of the live job's id, and its jobs carry no workspace, so the queue is our own.)
import { randomUUID } from "node:crypto";
import type { Queryable } from "../platform/db/index.js";
import { AppError } from "../platform/errors.js";
import * as sql from "./sql.js";

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

export class LeaseLostError extends Error {
  constructor(jobId: string) {
    super(`the lease on job ${jobId} was lost (expired and taken over); its work is rolled back`);
    this.name = "LeaseLostError";
  }
}

export async function enqueue(tx: Queryable, request: EnqueueRequest): Promise<EnqueueResult> {
  const newId = randomUUID();
  const { rows } = await tx.query<{ id: string; run_after: Date }>(sql.ENQUEUE, [
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
  if (!coalesced) await tx.query(sql.NOTIFY, [JOBS_CHANNEL]);
  return { jobId: job.id, coalesced, runAfter: job.run_after };
}

/**
 * The most jobs a workspace may hold queued ahead of the turn being served (docs/operations.md,
 * "The job queue"): past it, a request that queues work (a write, a publish, a reindex, a
 * backfill, a run) is refused with 429 queue_full until the workers have caught up. Erasure is
 * never refused, and the worker's own follow-up jobs are not bounded (a refusal there would leave
 * records unready).
 */
export const QUEUE_MAX_PER_WORKSPACE = 10_000;

/**
 * How long a workspace's backlog, once read, answers for it in this process: the bound is coarse
 * (thousands of jobs), so a write reads it at most once a second per workspace instead of adding a
 * statement to every write (measured: 10-20% of batch ingest on PGlite).
 */
const BACKLOG_FRESH_MS = 1_000;
const backlogs = new Map<string, { readAt: number; backlog: number }>();

/** Refuses the caller's request when its workspace's backlog is at QUEUE_MAX_PER_WORKSPACE. */
export async function refuseWhenBacklogged(tx: Queryable, workspaceId: string): Promise<void> {
  let seen = backlogs.get(workspaceId);
  if (!seen || Date.now() - seen.readAt >= BACKLOG_FRESH_MS) {
    const { rows } = await tx.query<{ backlog: number }>(sql.BACKLOG, [workspaceId]);
    seen = { readAt: Date.now(), backlog: Number(rows[0]?.backlog ?? 0) };
    backlogs.set(workspaceId, seen);
  }
  const { backlog } = seen;
  if (backlog >= QUEUE_MAX_PER_WORKSPACE) {
    throw new AppError(
      "queue_full",
      `this workspace has ${backlog} jobs queued, the most a workspace may hold (${QUEUE_MAX_PER_WORKSPACE}); nothing was written or queued: retry once the workers have caught up`,
    );
  }
}

export async function claimJobs(
  db: Queryable,
  claim: { owner: string; kinds: string[]; leaseSeconds: number; limit: number },
): Promise<Job[]> {
  const { rows } = await db.query<Job>(sql.CLAIM, [
    claim.owner,
    claim.leaseSeconds,
    claim.kinds,
    claim.limit,
  ]);
  return rows;
}

export async function heartbeat(
  db: Queryable,
  job: Job,
  owner: string,
  leaseSeconds: number,
): Promise<boolean> {
  return (await db.query(sql.HEARTBEAT, [job.workspace_id, job.id, owner, leaseSeconds])).rowCount > 0;
}

/** Inside a transaction: throws LeaseLostError unless this worker still holds the job. */
export async function fence(tx: Queryable, job: Job, owner: string): Promise<void> {
  const { rows } = await tx.query(sql.FENCE, [job.workspace_id, job.id, owner]);
  if (rows.length === 0) throw new LeaseLostError(job.id);
}

export async function succeed(
  tx: Queryable,
  job: Job,
  owner: string,
  runId: string | null = null,
): Promise<void> {
  const { rowCount } = await tx.query(sql.SUCCEED, [job.workspace_id, job.id, owner, runId]);
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
  const { rowCount } = await tx.query(sql.KILL, [
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
  const { rows } = await db.query<{ state: Job["state"] }>(sql.FAIL, [
    job.workspace_id,
    job.id,
    owner,
    error.slice(0, 2000),
    backoffSeconds(job.attempts),
  ]);
  return rows[0]?.state;
}

export async function releaseLeases(db: Queryable, owner: string): Promise<number> {
  return (await db.query(sql.RELEASE, [owner])).rowCount;
}

export async function getJob(db: Queryable, workspaceId: string, id: string): Promise<Job> {
  const job = /^[0-9a-f-]{36}$/i.test(id)
    ? (await db.query<Job>(sql.GET_JOB, [workspaceId, id])).rows[0]
    : undefined;
  if (!job) throw new AppError("not_found", `no job ${id}`);
  return job;
}

/** POST /jobs/{id}/retry: a dead job is queued again with a fresh attempt budget. */
export async function retryJob(db: Queryable, workspaceId: string, id: string): Promise<Job> {
  const job = await getJob(db, workspaceId, id);
  const { rows } = await db.query<Job>(sql.RETRY, [workspaceId, job.id]);
  if (!rows[0]) {
    throw new AppError("job_not_retryable", `job ${id} is ${job.state}; only a dead job can be retried`, {
      state: job.state,
    });
  }
  await db.query(sql.NOTIFY, [JOBS_CHANNEL]);
  return rows[0];
}

/** A deleted workspace's jobs, inside the deletion's transaction. */
export async function deleteWorkspaceJobs(tx: Queryable, workspaceId: string): Promise<void> {
  await tx.query(sql.DELETE_WORKSPACE_JOBS, [workspaceId]);
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
