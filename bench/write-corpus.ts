// The write figures of one size: the noise workspaces and the main corpus written (through the
// API, or the base bulk-loaded in process with --load bulk), then the batch-of-1 sample, the
// worker draining the backlog, and write-to-ready with the worker running.
import { type BulkFigures, bulkLoad } from "./bulk-load.js";
import type { Api } from "./clients.js";
import type { WriteRow } from "./corpus.js";
import { drainBacklog, type Throughput, writeRows, writeToReady } from "./ingest.js";
import type { Options } from "./options.js";
import type { BenchWorkspace, System } from "./setup.js";

/** With --load bulk, the main rows written through the API on top of the bulk-loaded base. */
const API_ROWS = 20_000;

export interface IngestFigures {
  /** With --load bulk: the base written, enriched and sealed in process (bench/bulk-load.ts). */
  bulk_load?: BulkFigures;
  batch_100: Throughput;
  batch_1: Throughput;
  enrich_backlog: Throughput;
  write_to_ready: Throughput;
  /** Until the worker also sealed the deferred embeddings into their index (absent in older runs). */
  enrich_backlog_indexed?: Throughput;
  write_to_indexed?: Throughput;
}

/**
 * The main corpus in three parts: the write-to-ready sample (its last customer events, which
 * need enrichment), the batch-of-1 sample (the rows before them) and the bulk (the rest).
 */
export function split(rows: WriteRow[], readySample: number, singleRows: number) {
  const sample = new Set<number>();
  for (let i = rows.length - 1; i >= 0 && sample.size < readySample; i--) {
    if (rows[i]?.collection === "customer_events") sample.add(i);
  }
  const rest = rows.filter((_, i) => !sample.has(i));
  const single = Math.min(singleRows, Math.floor(rest.length / 2));
  return {
    bulk: rest.slice(0, rest.length - single),
    single: rest.slice(rest.length - single),
    ready: rows.filter((_, i) => sample.has(i)),
  };
}

export async function writeCorpus(
  target: { system: System; api: Api; main: BenchWorkspace; noise: BenchWorkspace[] },
  corpus: { parts: ReturnType<typeof split>; noise: WriteRow[][] },
  options: Options,
  log: (line: string) => void,
): Promise<IngestFigures> {
  const { system, api, main, noise } = target;
  const { parts } = corpus;
  // Written through the API for the batch-100 figure: all of the bulk part, or with --load bulk
  // only its last API_ROWS on top of a base loaded in process.
  let viaApi = parts.bulk;
  let bulk: BulkFigures | undefined;
  if (options.load === "bulk") {
    const top = Math.min(API_ROWS, Math.floor(parts.bulk.length / 2));
    const base = parts.bulk.slice(0, parts.bulk.length - top);
    viaApi = parts.bulk.slice(parts.bulk.length - top);
    log(
      `bulk load: ${noise.length} x ${corpus.noise[0]?.length ?? 0} noise rows and ${base.length} main rows`,
    );
    bulk = await bulkLoad(
      system.db,
      system.config,
      [
        ...noise.map((workspace, i) => ({ workspace, rows: corpus.noise[i] ?? [] })),
        { workspace: main, rows: base },
      ],
      log,
    );
    log(
      `  ${bulk.rows_per_s} rows/s (write ${bulk.write_s} s, enrich ${bulk.enrich_s} s, seal ${bulk.seal_s} s)`,
    );
  } else {
    // The noise workspaces first: same catalog and entity names, a fifth of the rows each. Their
    // writes also warm the ingest path up before the timed writes.
    log(`noise workspaces: ${noise.length} x ${corpus.noise[0]?.length ?? 0} rows`);
    for (const [i, ws] of noise.entries()) {
      await writeRows(api, ws.key, corpus.noise[i] ?? [], 100, options.clients);
    }
  }
  log(`ingest, batches of 100: ${viaApi.length} rows, ${options.clients} clients, worker stopped`);
  const batch100 = await writeRows(api, main.key, viaApi, 100, options.clients);
  log(`  ${batch100.rows_per_s} rows/s`);
  log(`ingest, batches of 1: a sample of ${parts.single.length} rows, ${options.clients} clients`);
  const batch1 = await writeRows(api, main.key, parts.single, 1, options.clients);
  log(`  ${batch1.rows_per_s} rows/s`);
  log("worker: draining the enrichment backlog");
  const { worker, figure: backlog, indexed: backlogIndexed } = await drainBacklog(system, log);
  log(
    `  ${backlog.rows} rows made ready, ${backlog.rows_per_s} rows/s (indexed: ${backlogIndexed.rows_per_s})`,
  );
  log(`write-to-ready: ${parts.ready.length} customer events in batches of 100, worker running`);
  let ready: { figure: Throughput; indexed: Throughput };
  try {
    ready = await writeToReady(system, api, main.key, parts.ready, options.clients, log);
  } finally {
    await worker.stop();
  }
  log(`  ${ready.figure.rows_per_s} rows/s (indexed: ${ready.indexed.rows_per_s})`);
  return {
    ...(bulk ? { bulk_load: bulk } : {}),
    batch_100: batch100,
    batch_1: batch1,
    enrich_backlog: backlog,
    write_to_ready: ready.figure,
    enrich_backlog_indexed: backlogIndexed,
    write_to_indexed: ready.indexed,
  };
}
