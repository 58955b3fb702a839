// One corpus size, measured in a fresh database inside its own process (run.ts starts it), so
// peak RSS and caches belong to this size alone. Writes its figures as JSON to the given path.
//   node --import tsx bench/size.ts <records> <result.json> <options json>
import { writeFile } from "node:fs/promises";
import { storageLayout } from "../src/platform/db/index.js";
import { startOpenAIStub } from "../test/support/openai-stub.js";
import { startAnswerModel } from "./answer-model.js";
import { type BulkFigures, bulkLoad } from "./bulk-load.js";
import { Api } from "./clients.js";
import { generateCorpus, type WriteRow } from "./corpus.js";
import { measureErase } from "./erase.js";
import { drainBacklog, type Throughput, writeRows, writeToReady } from "./ingest.js";
import type { Options } from "./options.js";
import { measureRecall } from "./recall.js";
import { measureSearch } from "./search.js";
import { createBenchWorkspace, databaseBytes, openBenchDb, serverVersion, startSystem } from "./setup.js";
import { measureVectorRecall } from "./vector-recall.js";
import { buildVocabulary } from "./vocabulary.js";

const [recordsArg, resultPath, optionsJson] = process.argv.slice(2);
if (!recordsArg || !resultPath || !optionsJson)
  throw new Error("usage: size.ts <records> <result.json> <options>");
const records = Number(recordsArg);
const options = JSON.parse(optionsJson) as Options;
const began = performance.now();
/** With --load bulk, the main rows written through the API on top of the bulk-loaded base. */
const API_ROWS = 20_000;
const log = (line: string) =>
  process.stderr.write(
    `[${records} ${((performance.now() - began) / 1000).toFixed(0).padStart(4)}s] ${line}\n`,
  );

/**
 * The main corpus in three parts: the write-to-ready sample (its last customer events, which
 * need enrichment), the batch-of-1 sample (the rows before them) and the bulk (the rest).
 */
function split(rows: WriteRow[], readySample: number, singleRows: number) {
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

function countBy(rows: WriteRow[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const row of rows) {
    const name = row.tombstone ? `${row.collection} (tombstones)` : row.collection;
    out[name] = (out[name] ?? 0) + 1;
  }
  return out;
}

const bench = await openBenchDb();
// Started before the server, whose MODEL_ENDPOINTS must list it (docs/operations.md).
const answerStub = options.modes.includes("answer") ? await startOpenAIStub() : undefined;
const system = await startSystem(bench.db, { modelEndpoints: answerStub?.baseUrl });
const api = new Api(system.url, Math.max(8, options.clients));
try {
  const vocabulary = buildVocabulary(options.seed, options.words, options.zipf);
  const main = await createBenchWorkspace(system.db, api, "bench-main", options.embedder);
  const noise = [
    await createBenchWorkspace(system.db, api, "bench-noise-1", options.embedder),
    await createBenchWorkspace(system.db, api, "bench-noise-2", options.embedder),
  ];
  const corpus = generateCorpus(options.seed, records, vocabulary);
  const readySample = options.quick ? 300 : Math.min(10_000, Math.max(1000, Math.round(records / 10)));
  const parts = split(corpus, readySample, options.singleRows);
  const noiseRows = Math.round(records * options.noiseShare);

  const noiseCorpora = noise.map((_, i) => generateCorpus(options.seed + 1 + i, noiseRows, vocabulary));
  // Written through the API for the batch-100 figure: all of the bulk part, or with --load bulk
  // only its last API_ROWS on top of a base loaded in process.
  let viaApi = parts.bulk;
  let bulk: BulkFigures | undefined;
  if (options.load === "bulk") {
    const top = Math.min(API_ROWS, Math.floor(parts.bulk.length / 2));
    const base = parts.bulk.slice(0, parts.bulk.length - top);
    viaApi = parts.bulk.slice(parts.bulk.length - top);
    log(`bulk load: 2 x ${noiseRows} noise rows and ${base.length} main rows, in process`);
    bulk = await bulkLoad(
      system.db,
      system.config,
      [
        ...noise.map((workspace, i) => ({ workspace, rows: noiseCorpora[i] ?? [] })),
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
    log(`noise workspaces: 2 x ${noiseRows} rows`);
    for (const [i, ws] of noise.entries()) {
      await writeRows(api, ws.key, noiseCorpora[i] ?? [], 100, options.clients);
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
  // The database as a settled system has it (server: autovacuum; PGlite: the app's own
  // maintenance), brought about now so every search sees the whole corpus: planner statistics,
  // and the dead row versions of the enrichment reclaimed. Servers with autovacuum off (this
  // machine's CI configuration) would otherwise search a records table that is half dead rows.
  await system.db.exec("VACUUM ANALYZE");
  const answerModel = answerStub
    ? await startAnswerModel(api, main.key, answerStub, options.embedder)
    : undefined;
  log(`search: ${options.requests} requests or ${options.seconds} s per configuration`);
  const search = await measureSearch(
    system,
    api,
    main.key,
    vocabulary,
    {
      seed: options.seed,
      records,
      budget: { requests: options.requests, seconds: options.seconds },
      modes: options.modes,
    },
    log,
  );
  await answerModel?.close();
  log("recall of the text proposals from the cells");
  const recall = await measureRecall(system.db, main.id, vocabulary, {
    seed: options.seed,
    records,
    requests: Math.min(options.requests, 100),
    modes: options.modes,
  });
  // Without pgvector every vector proposal is an exact scan already.
  let vectorRecall: Awaited<ReturnType<typeof measureVectorRecall>> | undefined;
  if (system.db.hasVector) {
    log("recall of the vector proposals");
    vectorRecall = await measureVectorRecall(system.db, main.id, vocabulary, {
      seed: options.seed,
      records,
      requests: Math.min(options.requests, 100),
      modes: options.modes,
    });
  }
  const erase = options.erase
    ? await measureErase(system, api, main.key, vocabulary, { seed: options.seed, records }, log)
    : undefined;
  const result = {
    records,
    server_version: await serverVersion(system.db),
    layout: storageLayout(system.db),
    corpus: {
      main: countBy(corpus),
      noise_rows_per_workspace: noiseRows,
      write_to_ready_sample: parts.ready.length,
      single_row_sample: parts.single.length,
    },
    load: options.load,
    ingest: {
      ...(bulk ? { bulk_load: bulk } : {}),
      batch_100: batch100,
      batch_1: batch1,
      enrich_backlog: backlog,
      write_to_ready: ready.figure,
      enrich_backlog_indexed: backlogIndexed,
      write_to_indexed: ready.indexed,
    },
    search,
    recall,
    vector_recall: vectorRecall,
    erase,
    peak_rss_mib: Math.round(process.resourceUsage().maxRSS / 1024),
    database_mib: Math.round((await databaseBytes(system.db)) / 2 ** 20),
    seconds: Math.round((performance.now() - began) / 1000),
  };
  await writeFile(resultPath, JSON.stringify(result));
  log("done");
} finally {
  await api.close();
  await system.close();
  const kept = await bench.close(options.keep);
  if (kept) log(`kept database ${kept}`);
}
