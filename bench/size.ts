// One corpus size, measured in a fresh database inside its own process (run.ts starts it), so
// peak RSS and caches belong to this size alone. Writes its figures as JSON to the given path.
//   node --import tsx bench/size.ts <records> <result.json> <options json>
import { writeFile } from "node:fs/promises";
import { storageLayout } from "../src/platform/db/index.js";
import { startOpenAIStub } from "../test/support/openai-stub.js";
import { startAnswerModel } from "./answer-model.js";
import { Api } from "./clients.js";
import { generateCorpus, type WriteRow } from "./corpus.js";
import { measureErase } from "./erase.js";
import type { Options } from "./options.js";
import { measureRecall } from "./recall.js";
import type { SizeResult } from "./report.js";
import { measureSearch } from "./search.js";
import {
  type BenchWorkspace,
  createBenchWorkspace,
  databaseBytes,
  openBenchDb,
  reuseBenchWorkspace,
  serverVersion,
  startSystem,
} from "./setup.js";
import { measureVectorRecall } from "./vector-recall.js";
import { buildVocabulary } from "./vocabulary.js";
import { type IngestFigures, split, writeCorpus } from "./write-corpus.js";

const [recordsArg, resultPath, optionsJson] = process.argv.slice(2);
if (!recordsArg || !resultPath || !optionsJson)
  throw new Error("usage: size.ts <records> <result.json> <options>");
const records = Number(recordsArg);
const options = JSON.parse(optionsJson) as Options;
const began = performance.now();
const log = (line: string) =>
  process.stderr.write(
    `[${records} ${((performance.now() - began) / 1000).toFixed(0).padStart(4)}s] ${line}\n`,
  );

function countBy(rows: WriteRow[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const row of rows) {
    const name = row.tombstone ? `${row.collection} (tombstones)` : row.collection;
    out[name] = (out[name] ?? 0) + 1;
  }
  return out;
}

const bench = await openBenchDb(options.reuse);
// Started before the server, whose MODEL_ENDPOINTS must list it (docs/operations.md).
const answerStub = options.modes.includes("answer") ? await startOpenAIStub() : undefined;
const system = await startSystem(bench.db, { modelEndpoints: answerStub?.baseUrl });
const api = new Api(system.url, Math.max(8, options.clients));
try {
  const vocabulary = buildVocabulary(options.seed, options.words, options.zipf);
  const names = [
    "bench-main",
    ...Array.from({ length: options.noiseWorkspaces }, (_, i) => `bench-noise-${i + 1}`),
  ];
  // A reused database (--reuse) holds its workspaces: each gets a key for this run.
  const workspaces: BenchWorkspace[] = [];
  for (const name of names) {
    workspaces.push(
      options.reuse
        ? await reuseBenchWorkspace(system.db, name)
        : await createBenchWorkspace(system.db, api, name, options.embedder),
    );
  }
  const [main, ...noise] = workspaces;
  if (!main) throw new Error("no main workspace");
  const corpus = generateCorpus(options.seed, records, vocabulary);
  const readySample = options.quick ? 300 : Math.min(10_000, Math.max(1000, Math.round(records / 10)));
  const parts = split(corpus, readySample, options.singleRows);
  const noiseRows = Math.round(records * options.noiseShare);
  let ingest: IngestFigures | undefined;
  if (options.reuse) log(`reusing ${options.reuse}: no writes, searches only`);
  else {
    const noiseCorpora = noise.map((_, i) => generateCorpus(options.seed + 1 + i, noiseRows, vocabulary));
    ingest = await writeCorpus({ system, api, main, noise }, { parts, noise: noiseCorpora }, options, log);
  }
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
  // Without pgvector every vector proposal is an exact scan already. With it, the main workspace
  // and the first noise workspace (a smaller share of the shared index, unless --noise 1).
  let vectorRecall: Awaited<ReturnType<typeof measureVectorRecall>> | undefined;
  let tenantVectorRecall: SizeResult["tenant_vector_recall"];
  if (system.db.hasVector) {
    log("recall of the vector proposals");
    const measure = (workspaceId: string) =>
      measureVectorRecall(system.db, workspaceId, vocabulary, {
        seed: options.seed,
        records,
        requests: Math.min(options.requests, 100),
        modes: options.modes,
        vectorExactRows: system.config.vectorExactRows,
      });
    vectorRecall = await measure(main.id);
    const [tenant] = noise;
    if (tenant)
      tenantVectorRecall = { workspace: tenant.name, rows: noiseRows, figures: await measure(tenant.id) };
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
      noise_workspaces: noise.length,
      noise_rows_per_workspace: noiseRows,
      write_to_ready_sample: parts.ready.length,
      single_row_sample: parts.single.length,
    },
    load: options.load,
    ...(ingest ? { ingest } : {}),
    search,
    recall,
    vector_recall: vectorRecall,
    ...(tenantVectorRecall ? { tenant_vector_recall: tenantVectorRecall } : {}),
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
