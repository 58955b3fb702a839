// The bulk loader (npm run bench -- --load bulk): a corpus written in this process through the
// domain write POST /records calls (writeRecords), in batches of BULK_BATCH rows; then the
// enrichment jobs those writes queued, run here by the worker's own handler over large
// sub-batches (embeddings stored deferred while more jobs wait); then each space's deferred
// vectors sealed into its index at once. No HTTP and no polling worker: a large base is built in
// one sitting, and its rows, text statistics and embeddings are those the API and the worker
// would have written (test/integration/bulk-load.test.ts compares the two).
import { randomUUID } from "node:crypto";
import { pino } from "pino";
import type { Config } from "../src/config/index.js";
import { periodicTasks, workerHandlers } from "../src/deps.js";
import type { Db } from "../src/platform/db/index.js";
import type { Workspace } from "../src/platform/workspace.js";
import { enrichmentWaits } from "../src/records/enrich.js";
import { ENRICH_JOB, writeRecords } from "../src/records/index.js";
import { sealWorkWaits } from "../src/records/vector-seal.js";
import { claimJobs } from "../src/worker/index.js";
import type { WriteRow } from "./corpus.js";
import { cancelQueuedDerivations } from "./ingest.js";

/** Rows per write transaction, and per enrichment sub-batch. */
export const BULK_BATCH = 2_000;
/** Rows enriched between progress lines. */
const PROGRESS_ROWS = 100_000;
/** A claimed job's lease: one job's work at BULK_BATCH rows takes seconds, never this long. */
const LEASE_SECONDS = 3_600;

export interface BulkLoad {
  workspace: Workspace;
  rows: WriteRow[];
}

export interface BulkFigures {
  rows: number;
  write_s: number;
  enrich_s: number;
  seal_s: number;
  rows_per_s: number;
}

/** Writes every load's rows, enriches them and seals their vectors; returns where the time went. */
export async function bulkLoad(
  db: Db,
  config: Config,
  loads: BulkLoad[],
  log: (line: string) => void = () => {},
): Promise<BulkFigures> {
  const rows = loads.reduce((n, load) => n + load.rows.length, 0);
  const began = performance.now();
  for (const load of loads) {
    for (let i = 0; i < load.rows.length; i += BULK_BATCH) {
      await writeRecords(db, load.workspace, load.rows.slice(i, i + BULK_BATCH), { maxBatch: BULK_BATCH });
    }
    log(`  bulk: ${load.rows.length} rows written into ${load.workspace.name}`);
  }
  const written = performance.now();
  await enrichQueued(db, config, log);
  await cancelQueuedDerivations(db);
  const enriched = performance.now();
  await sealVectors(db, config);
  const sealed = performance.now();
  const seconds = (ms: number) => Math.round(ms / 10) / 100;
  return {
    rows,
    write_s: seconds(written - began),
    enrich_s: seconds(enriched - written),
    seal_s: seconds(sealed - enriched),
    rows_per_s: Math.round(rows / ((sealed - began) / 1000)),
  };
}

/**
 * Runs every queued enrichment job with the worker's handler, at BULK_BATCH rows a sub-batch: two
 * jobs at once on a server (as the worker runs them: one computes while the other writes), one on
 * embedded storage's single connection.
 */
async function enrichQueued(db: Db, config: Config, log: (line: string) => void): Promise<void> {
  const handlers = await workerHandlers({
    ...config,
    enrichEmbedBatch: BULK_BATCH,
    enrichLlmBatch: BULK_BATCH,
  });
  const enrich = handlers[ENRICH_JOB];
  if (!enrich) throw new Error("the worker has no enrichment handler");
  const owner = `bench-bulk-${randomUUID()}`;
  const ctx = { db, owner, log: pino({ level: "silent" }), stopping: () => false };
  let done = 0;
  let report = PROGRESS_ROWS;
  const stream = async () => {
    for (;;) {
      const [job] = await claimJobs(db, {
        owner,
        kinds: [ENRICH_JOB],
        leaseSeconds: LEASE_SECONDS,
        limit: 1,
      });
      if (!job) return;
      await enrich(job, ctx);
      done += ((job.payload.record_ids as string[] | undefined) ?? []).length;
      if (done >= report) {
        log(`  bulk: ${done} rows enriched`);
        report += PROGRESS_ROWS;
      }
    }
  };
  await Promise.all(Array.from({ length: db.kind === "postgres" ? 2 : 1 }, stream));
}

/**
 * Seals every space's deferred vectors as the worker's periodic task does, until none wait. The
 * seal leaves a tail be while enrichment is queued, so queued jobs here (a failed load) end it.
 */
async function sealVectors(db: Db, config: Config): Promise<void> {
  const seal = periodicTasks(config).find((task) => task.name === "vector seal");
  if (!seal) throw new Error("the worker has no vector seal task");
  const ctx = { db, owner: "bench-bulk", log: pino({ level: "silent" }), stopping: () => false };
  while (await sealWorkWaits(db)) {
    if (await enrichmentWaits(db))
      throw new Error("enrichment jobs are still queued: the load did not finish");
    await seal.run(ctx);
  }
}
