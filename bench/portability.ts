// npm run bench:portability — engram export and import throughput (a benchmark, not a test):
// a workspace of the bench corpus (default 100k records, the example catalog, enriched by the
// worker with the fake models) is exported into a file and imported into a new workspace of the
// same database, without and with embeddings, through the domain functions the CLI runs.
// Figures: lines (rows of every kind) and records per second, file size. An import's time
// includes building the term statistics; without embeddings its enrichment is left queued (the
// worker's drain is the ingest bench's figure). Flags: --records N (default 100000), --seed S.
// Uses DATABASE_URL when set (a scratch database), else in-memory PGlite.
import { once } from "node:events";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { pino } from "pino";
import { exampleCatalogRequest, publishCatalog } from "../src/catalog/index.js";
import { loadConfig } from "../src/config/index.js";
import { prepareDatabase } from "../src/database.js";
import { catalogDeps, wireModules } from "../src/deps.js";
import { DERIVE_JOB } from "../src/derivations/index.js";
import { EXAMPLE_CATALOG_DIR, startWorker } from "../src/main.js";
import type { Db } from "../src/platform/db/index.js";
import type { Workspace } from "../src/platform/workspace.js";
import { type Counts, exportWorkspace, importWorkspace } from "../src/portability/index.js";
import { writeRecords } from "../src/records/index.js";
import { createWorkspace } from "../src/workspaces/index.js";
import { generateCorpus } from "./corpus.js";
import { openBenchDb } from "./setup.js";
import { buildVocabulary } from "./vocabulary.js";

const { values } = parseArgs({ options: { records: { type: "string" }, seed: { type: "string" } } });
const RECORDS = Number(values.records ?? 100_000);
const SEED = Number(values.seed ?? 42);
const WRITE_BATCH = 1000;

const config = loadConfig({ ...process.env, LOG_LEVEL: "silent" });
const log = (line: string) => process.stderr.write(`${line}\n`);
const seconds = (since: number) => (performance.now() - since) / 1000;

async function unready(db: Db): Promise<number> {
  const { rows } = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM records WHERE NOT ready");
  return rows[0]?.n ?? 0;
}

/** Writes the corpus through the write path, then lets the worker enrich every record. */
async function fill(db: Db, workspace: Workspace): Promise<void> {
  await publishCatalog(catalogDeps(db, config), workspace, await exampleCatalogRequest(EXAMPLE_CATALOG_DIR));
  const rows = generateCorpus(SEED, RECORDS, buildVocabulary(SEED, 5000, 1.1));
  const began = performance.now();
  for (let i = 0; i < rows.length; i += WRITE_BATCH) {
    await writeRecords(db, workspace, rows.slice(i, i + WRITE_BATCH), { maxBatch: WRITE_BATCH });
  }
  log(`wrote ${rows.length} records in ${seconds(began).toFixed(1)} s; enriching`);
  const worker = await startWorker(db, config, pino({ level: "silent" }), { except: [DERIVE_JOB] });
  try {
    while ((await unready(db)) > 0) await new Promise((resolve) => setTimeout(resolve, 500));
  } finally {
    await worker.stop();
  }
  log(`enriched in ${seconds(began).toFixed(1)} s since the first write`);
  await settle(db);
  await db.exec("VACUUM ANALYZE");
}

/**
 * Lets the maintenance PGlite runs once writes pause (src/platform/db/pglite-maintenance.ts: 2 s
 * of quiet) finish before the next step, so that a step is not timed with the vacuum of what an
 * earlier one wrote (each CLI command runs in a process of its own). A query waits behind it.
 */
async function settle(db: Db): Promise<void> {
  if (db.kind !== "pglite") return;
  await new Promise((resolve) => setTimeout(resolve, 3000));
  await db.query("SELECT 1");
}

interface Figure {
  step: string;
  lines: number;
  records: number;
  mb: number;
  seconds: number;
  lines_per_s: number;
  records_per_s: number;
}

function figure(step: string, counts: Counts, bytes: number, elapsed: number): Figure {
  const lines = Object.values(counts).reduce((sum, n) => sum + n, 0);
  const records = counts.record ?? 0;
  return {
    step,
    lines,
    records,
    mb: Math.round(bytes / 1e5) / 10,
    seconds: Math.round(elapsed * 10) / 10,
    lines_per_s: Math.round(lines / elapsed),
    records_per_s: Math.round(records / elapsed),
  };
}

async function exportTo(
  db: Db,
  workspace: Workspace,
  file: string,
  withEmbeddings: boolean,
): Promise<Figure> {
  const out = createWriteStream(file);
  const began = performance.now();
  const counts = await exportWorkspace(db, {
    workspace,
    withEmbeddings,
    write: async (chunk) => {
      if (!out.write(chunk)) await once(out, "drain");
    },
  });
  out.end();
  await once(out, "finish");
  const elapsed = seconds(began);
  return figure(
    `export${withEmbeddings ? " --with-embeddings" : ""}`,
    counts,
    (await stat(file)).size,
    elapsed,
  );
}

async function importFrom(db: Db, name: string, file: string, withEmbeddings: boolean): Promise<Figure> {
  const began = performance.now();
  const lines = createInterface({ input: createReadStream(file), crlfDelay: Number.POSITIVE_INFINITY });
  const result = await importWorkspace(db, catalogDeps(db, config), { workspace: name, lines });
  const elapsed = seconds(began);
  return figure(
    `import${withEmbeddings ? " --with-embeddings" : ""}`,
    result.counts,
    (await stat(file)).size,
    elapsed,
  );
}

const bench = await openBenchDb();
const dir = await mkdtemp(join(tmpdir(), "engram-bench-portability-"));
try {
  const { db } = bench;
  await prepareDatabase(db);
  wireModules();
  const created = await createWorkspace(db, "bench-source");
  const source = { id: created.id, name: created.workspace };
  await fill(db, source);
  const figures: Figure[] = [];
  const file = (withEmbeddings: boolean) => join(dir, withEmbeddings ? "vectors.jsonl" : "plain.jsonl");
  // Both exports before any import, so that no import's writes are vacuumed under an export.
  for (const withEmbeddings of [false, true]) {
    figures.push(await exportTo(db, source, file(withEmbeddings), withEmbeddings));
    log(JSON.stringify(figures.at(-1)));
  }
  for (const withEmbeddings of [false, true]) {
    const name = withEmbeddings ? "bench-vectors" : "bench-plain";
    figures.push(await importFrom(db, name, file(withEmbeddings), withEmbeddings));
    log(JSON.stringify(figures.at(-1)));
    await settle(db);
  }
  process.stdout.write(`engram export/import, ${bench.label}, ${RECORDS} records (seed ${SEED})\n`);
  console.table(figures);
} finally {
  await bench.close();
  await rm(dir, { recursive: true, force: true });
}
