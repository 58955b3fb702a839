// Write figures: POST /records throughput in batches of 100 and of 1, the worker draining the
// enrichment backlog, and write-to-ready (first write until no unready row remains, the worker
// running alongside the writers, fake embedder and fake urgency scorer).
import { pino } from "pino";
import { DERIVE_JOB } from "../src/derivations/index.js";
import { startWorker } from "../src/main.js";
import type { Db } from "../src/platform/db/index.js";
import { sealWorkWaits } from "../src/records/vector-seal.js";
import type { Worker } from "../src/worker/runner.js";
import { type Api, runLoad } from "./clients.js";
import type { WriteRow } from "./corpus.js";
import type { System } from "./setup.js";

export interface Throughput {
  rows: number;
  seconds: number;
  rows_per_s: number;
}

function throughput(rows: number, seconds: number): Throughput {
  return { rows, seconds: Math.round(seconds * 100) / 100, rows_per_s: Math.round(rows / seconds) };
}

/** Writes rows in batches with `clients` concurrent writers, each taking the next batch. */
export async function writeRows(
  api: Api,
  key: string,
  rows: WriteRow[],
  batch: number,
  clients: number,
): Promise<Throughput> {
  const batches = Math.ceil(rows.length / batch);
  const result = await runLoad(clients, { requests: batches, seconds: Number.POSITIVE_INFINITY }, (i) =>
    api.post(key, "/records", { records: rows.slice(i * batch, (i + 1) * batch) }).then(() => undefined),
  );
  return throughput(rows.length, result.elapsed);
}

// Whether any enrichment job is queued or running: polled every 25 ms through a drain, so it
// stops at the first one (a count of them took ~5% of a 2-core server's drain).
const ENRICH_JOBS_ACTIVE = `
  SELECT (EXISTS (SELECT 1 FROM jobs WHERE kind = 'enrich' AND state = 'queued')
    OR EXISTS (SELECT 1 FROM jobs WHERE kind = 'enrich' AND state = 'running'))::int AS n`;
const DEAD_ENRICH_JOBS =
  "SELECT count(*)::int AS n, max(last_error) AS error FROM jobs WHERE kind = 'enrich' AND state = 'dead'";
const UNREADY = "SELECT count(*)::int AS n FROM records WHERE NOT ready";
// Derivation runs are bench:derive's to measure, so the bench's worker leaves them queued; left
// there, the ~24k a 1M corpus's ready events trigger would hold the main workspace at the queue
// bound (QUEUE_MAX_PER_WORKSPACE: its next write is 429 queue_full). Cancelled once a drain ends.
const CANCEL_QUEUED_DERIVATIONS = `UPDATE jobs SET state = 'cancelled', finished_at = now(), updated_at = now(),
    last_error = 'cancelled by the bench: derivations are measured by bench:derive'
  WHERE kind = '${DERIVE_JOB}' AND state = 'queued'`;

/** Cancels every queued derivation job (see CANCEL_QUEUED_DERIVATIONS). */
export async function cancelQueuedDerivations(db: Db): Promise<void> {
  await db.query(CANCEL_QUEUED_DERIVATIONS);
}

async function count(system: System, sql: string): Promise<{ n: number; error?: string }> {
  return (await system.db.query<{ n: number; error?: string }>(sql)).rows[0] ?? { n: 0 };
}

export async function unreadyRows(system: System): Promise<number> {
  return (await count(system, UNREADY)).n;
}

/**
 * Waits until the worker finished every enrichment job (a cheap poll on the jobs' partial
 * indexes every 25 ms), then confirms no record is left unready. A dead job aborts the run.
 */
export async function waitUntilReady(system: System, log?: (line: string) => void): Promise<void> {
  let nextReport = performance.now() + 60_000;
  for (;;) {
    if ((await count(system, ENRICH_JOBS_ACTIVE)).n === 0) break;
    if (log && performance.now() > nextReport) {
      // Progress on long drains (a full count: once a minute only).
      log(`  ... ${await unreadyRows(system)} rows still unready`);
      nextReport = performance.now() + 60_000;
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  await cancelQueuedDerivations(system.db);
  const dead = await count(system, DEAD_ENRICH_JOBS);
  if (dead.n > 0) throw new Error(`${dead.n} enrichment job(s) died; last error: ${dead.error}`);
  const left = await unreadyRows(system);
  if (left > 0) throw new Error(`no enrichment job is left but ${left} record(s) are still unready`);
}

/**
 * The bench's worker: every job kind but derivation runs, so the enrichment figures measure
 * enrichment (the example package's accumulator queues derivations as records turn ready; they
 * stay queued here and `npm run bench:derive` measures them).
 */
export function startBenchWorker(system: System): Promise<Worker> {
  return startWorker(system.db, system.config, pino({ level: "silent" }), { except: [DERIVE_JOB] });
}

// Deferred embeddings past their space's last build: what the sealer has left to index.
const UNSEALED = `SELECT count(*)::int AS n FROM vector_indexes v
  JOIN embeddings e ON e.deferred AND e.space = v.space AND e.seq > v.built_through`;

/**
 * Waits until the running worker has sealed every deferred embedding (src/records/vector-seal.ts),
 * so searches measure the indexed store, not exact scans of a tail.
 */
export async function waitUntilIndexed(system: System, log: (line: string) => void): Promise<void> {
  let nextReport = performance.now() + 60_000;
  while (await sealWorkWaits(system.db)) {
    if (performance.now() > nextReport) {
      // Progress on long merges (PGlite merges a 100k backlog for minutes): once a minute.
      log(`  ... ${(await count(system, UNSEALED)).n} embeddings still to index`);
      nextReport = performance.now() + 60_000;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * The worker makes the backlog (every row written while it was stopped) ready, then indexed:
 * a backlog's embeddings are searched exactly until the worker seals them into their index.
 */
export async function drainBacklog(
  system: System,
  log: (line: string) => void,
): Promise<{ worker: Worker; figure: Throughput; indexed: Throughput }> {
  const backlog = await unreadyRows(system);
  const started = performance.now();
  const worker = await startBenchWorker(system);
  await waitUntilReady(system, log);
  const figure = throughput(backlog, (performance.now() - started) / 1000);
  await waitUntilIndexed(system, log);
  return { worker, figure, indexed: throughput(backlog, (performance.now() - started) / 1000) };
}

/** Rows/s from the first write of `rows` until the running worker made all of them ready (and indexed). */
export async function writeToReady(
  system: System,
  api: Api,
  key: string,
  rows: WriteRow[],
  clients: number,
  log: (line: string) => void,
): Promise<{ figure: Throughput; indexed: Throughput }> {
  if ((await unreadyRows(system)) > 0) throw new Error("write-to-ready must start with no backlog");
  const started = performance.now();
  await writeRows(api, key, rows, 100, clients);
  await waitUntilReady(system, log);
  const figure = throughput(rows.length, (performance.now() - started) / 1000);
  await waitUntilIndexed(system, log);
  return { figure, indexed: throughput(rows.length, (performance.now() - started) / 1000) };
}
