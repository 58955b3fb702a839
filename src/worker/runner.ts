// The worker loop: claims due jobs, runs their handlers with a heartbeat on the lease, and
// records success, retry or death. Any number of workers can share one PostgreSQL server.
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { Db } from "../platform/db/index.js";
import { yieldTurn } from "../platform/event-loop.js";
import type { Logger } from "../platform/log.js";
import {
  claimJobs,
  failJob,
  heartbeat,
  JOBS_CHANNEL,
  type Job,
  type JobState,
  LeaseLostError,
  releaseLeases,
} from "./queue.js";

export interface JobContext {
  db: Db;
  /** This worker's lease owner id: pass it to fence() and succeed() in every commit. */
  owner: string;
  log: Logger;
  /** True once the worker is stopping: handlers stop at the next batch boundary. */
  stopping(): boolean;
}

/**
 * A handler does the job's work in one or more transactions, each fenced on the lease, and
 * calls succeed() in its last one. Throwing schedules a retry (or death after max_attempts).
 */
export type JobHandler = (job: Job, ctx: JobContext) => Promise<void>;

/**
 * How one attempt at a job ended: `retried` (failed, queued again with backoff), `released`
 * (handed back untouched as the worker stops), `lease_lost` (the worker could not record an end:
 * its lease expired, or the database refused; the job runs again once the lease is over).
 */
export type AttemptOutcome = "succeeded" | "retried" | "dead" | "cancelled" | "released" | "lease_lost";

export interface JobAttempt {
  kind: string;
  outcome: AttemptOutcome;
  seconds: number;
}

/**
 * The outcome of an attempt from the state its end wrote: succeed() and endJob() keep it on the
 * claimed job, failJob() returns it; a job still `running` was left for release.
 */
function attemptOutcome(state: JobState | undefined): AttemptOutcome {
  if (state === undefined) return "lease_lost";
  if (state === "queued") return "retried";
  return state === "running" ? "released" : state;
}

/** Work a worker does on a clock rather than from the queue (cron triggers, purges). */
export interface PeriodicTask {
  name: string;
  everyMs: number;
  run(ctx: JobContext): Promise<void>;
}

export interface WorkerOptions {
  db: Db;
  log: Logger;
  handlers: Record<string, JobHandler>;
  /** A lease outlives a stalled worker by at most this long before another takes the job. */
  leaseSeconds?: number;
  /** Fallback polling when no notification arrives (timers, retries, other processes). */
  pollMs?: number;
  /** Jobs run at once by this worker. */
  concurrency?: number;
  /** Run every everyMs while the worker runs; a run never overlaps the previous one. */
  periodic?: PeriodicTask[];
  /** Told how each attempt ended and how long it ran (metrics). */
  onAttempt?: (attempt: JobAttempt) => void;
}

/**
 * Whether the loop waits (for a finished job, a notification or the poll) before claiming again:
 * unless every free slot was just filled. Never loop without awaiting: on PGlite a query resolves
 * as a microtask, so a loop that skipped the wait (as one did when a claim overfilled the slots
 * and `free` went negative) starved timers and I/O for good.
 */
export function mustWait(free: number, claimed: number): boolean {
  return free <= 0 || claimed < free;
}

// The heartbeat renews the lease well before it expires (a third of its length).
const HEARTBEAT_FRACTION = 3;

export class Worker {
  readonly owner = `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
  private readonly leaseSeconds: number;
  private readonly pollMs: number;
  private readonly concurrency: number;
  private running = new Set<Promise<void>>();
  private stopped = false;
  private wake: (() => void) | undefined;
  private loop: Promise<void> | undefined;
  private unlisten: (() => Promise<void>) | undefined;
  private timers: NodeJS.Timeout[] = [];
  private ticking = new Set<Promise<void>>();

  constructor(private readonly options: WorkerOptions) {
    this.leaseSeconds = options.leaseSeconds ?? 60;
    this.pollMs = options.pollMs ?? 1000;
    this.concurrency = options.concurrency ?? 2;
  }

  async start(): Promise<void> {
    this.unlisten = await this.options.db.listen(JOBS_CHANNEL, () => this.wake?.());
    this.loop = this.run();
    for (const task of this.options.periodic ?? []) this.schedule(task);
  }

  private schedule(task: PeriodicTask): void {
    let busy = false;
    const timer = setInterval(() => {
      if (busy || this.stopped) return;
      busy = true;
      const tick = task
        .run(this.context())
        .catch((error) => this.options.log.warn({ err: error, task: task.name }, "periodic task failed"))
        .finally(() => {
          busy = false;
          this.ticking.delete(tick);
        });
      this.ticking.add(tick);
    }, task.everyMs);
    timer.unref();
    this.timers.push(timer);
  }

  private context(): JobContext {
    return { db: this.options.db, owner: this.owner, log: this.options.log, stopping: () => this.stopped };
  }

  /** Stops claiming, lets running handlers reach a batch boundary, and hands back leases. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearInterval(timer);
    this.wake?.();
    await this.loop;
    await Promise.allSettled([...this.running, ...this.ticking]);
    await this.unlisten?.();
    await releaseLeases(this.options.db, this.owner).catch(() => 0);
  }

  private async run(): Promise<void> {
    const kinds = Object.keys(this.options.handlers);
    while (!this.stopped) {
      // A job that finishes wakes this loop from a microtask: without a macrotask turn here, jobs
      // run back to back on PGlite hold off every request (9 s behind 1,000 short derivation runs).
      await yieldTurn();
      const free = this.concurrency - this.running.size;
      let claimed: Job[] = [];
      if (free > 0) {
        try {
          claimed = await claimJobs(this.options.db, {
            owner: this.owner,
            kinds,
            leaseSeconds: this.leaseSeconds,
            limit: free,
          });
        } catch (error) {
          this.options.log.warn({ err: error }, "claiming jobs failed");
        }
      }
      for (const job of claimed) {
        const task = this.execute(job).finally(() => {
          this.running.delete(task);
          this.wake?.();
        });
        this.running.add(task);
      }
      if (mustWait(free, claimed.length)) await this.idle();
    }
  }

  private idle(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, this.pollMs);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }

  private async execute(job: Job): Promise<void> {
    const { db, log } = this.options;
    const handler = this.options.handlers[job.kind];
    const started = performance.now();
    const beat = setInterval(
      () => void heartbeat(db, job, this.owner, this.leaseSeconds).catch(() => false),
      (this.leaseSeconds * 1000) / HEARTBEAT_FRACTION,
    );
    let ended: JobState | undefined;
    try {
      if (!handler) throw new Error(`no handler for job kind ${job.kind}`);
      await handler(job, this.context());
      ended = job.state;
    } catch (error) {
      if (error instanceof LeaseLostError) {
        log.warn({ job: job.id }, error.message);
        return;
      }
      ended = await failJob(db, job, this.owner, (error as Error).message ?? String(error)).catch(
        () => undefined,
      );
      log.warn({ job: job.id, kind: job.kind, state: ended, err: error }, "job failed");
    } finally {
      clearInterval(beat);
      const seconds = (performance.now() - started) / 1000;
      this.options.onAttempt?.({ kind: job.kind, outcome: attemptOutcome(ended), seconds });
    }
  }
}
