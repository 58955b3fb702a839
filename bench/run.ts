// npm run bench: measures Engram through its real HTTP API. Today: ingest and write-to-ready
// throughput (the worker in-process, fake embedder and scorer).
//   npm run bench -- [--records 20000] [--batch 100] [--clients 4]
// Uses DATABASE_URL when set (a scratch database is created and dropped), else in-memory PGlite.
import { randomBytes } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import { parseArgs } from "node:util";
import pg from "pg";
import { pino } from "pino";
import { exampleCatalogRequest } from "../src/catalog/index.js";
import { type Config, loadConfig } from "../src/config/index.js";
import { buildApp } from "../src/http/app.js";
import { EXAMPLE_CATALOG_DIR, startWorker } from "../src/main.js";
import { type Db, migrate, openPglite, openPostgres } from "../src/platform/db/index.js";
import { createWorkspace } from "../src/workspaces/index.js";

const { values } = parseArgs({
  options: {
    records: { type: "string", default: "20000" },
    batch: { type: "string", default: "100" },
    clients: { type: "string", default: "4" },
  },
});
const RECORDS = Number(values.records);
const BATCH = Number(values.batch);
const CLIENTS = Number(values.clients);

// A small deterministic vocabulary; the full corpus generator arrives with the benchmark issue.
const WORDS =
  "billing invoice refund card declined upgrade plan outage login password export api latency timeout".split(
    " ",
  );
let state = 42;
function random(): number {
  state = (state * 1103515245 + 12345) % 2 ** 31;
  return state / 2 ** 31;
}
function sentence(n: number): string {
  return Array.from({ length: n }, () => WORDS[Math.floor(random() * WORDS.length)]).join(" ");
}

async function openBenchDb(): Promise<{ db: Db; label: string; drop: () => Promise<void> }> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    const db = await openPglite({ dataDir: "memory://" });
    return { db, label: "pglite", drop: async () => {} };
  }
  const name = `engram_bench_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const target = new URL(url);
  target.pathname = `/${name}`;
  const db = await openPostgres({ connectionString: target.toString() });
  return {
    db,
    label: "postgres",
    drop: async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

async function ingest(url: string, key: string, collection: string, batch: number): Promise<number> {
  const batches = Math.ceil(RECORDS / batch);
  let next = 0;
  const started = performance.now();
  const client = async () => {
    while (next < batches) {
      next++;
      const records = Array.from({ length: batch }, (_, i) => ({
        collection,
        entity: `customer-${Math.floor(random() * 500)}`,
        type: "ticket",
        text: sentence(12 + (i % 20)),
        content: collection === "customer_events" ? { channel: "email", priority: 1 + (i % 5) } : {},
      }));
      const res = await fetch(`${url}/records`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ records }),
      });
      if (res.status !== 200) throw new Error(`write failed: ${res.status} ${await res.text()}`);
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, client));
  return (batches * batch) / ((performance.now() - started) / 1000);
}

/** Rows/s from the first write until the worker (fake embedder and scorer) made all ready. */
async function writeToReady(
  db: Db,
  config: Config,
  url: string,
  ws: { id: string; api_key: string },
): Promise<number> {
  const log = pino({ level: "silent" });
  const worker = await startWorker(db, config, log);
  const unready = async () =>
    (
      await db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM records WHERE workspace_id = $1 AND NOT ready",
        [ws.id],
      )
    ).rows[0]?.n ?? 0;
  // Drain what earlier figures queued, so this one measures its own rows only.
  while ((await unready()) > 0) await new Promise((resolve) => setTimeout(resolve, 50));
  const started = performance.now();
  await ingest(url, ws.api_key, "customer_events", BATCH);
  while ((await unready()) > 0) await new Promise((resolve) => setTimeout(resolve, 20));
  const rate = RECORDS / ((performance.now() - started) / 1000);
  await worker.stop();
  return rate;
}

const SEARCHES: Record<string, (q: string) => { path: string; body: unknown }> = {
  text: (q) => ({ path: "/search", body: { mode: "text", q, k: 20 } }),
  vector: (q) => ({ path: "/search", body: { mode: "vector", q, k: 20 } }),
  hybrid: (q) => ({ path: "/search", body: { mode: "hybrid", q, k: 20 } }),
  recent: (q) => ({
    path: "/search",
    body: { mode: "recent", k: 20, scope: { entities: [`customer-${q.length % 500}`] } },
  }),
  structured: () => ({
    path: "/search",
    body: {
      mode: "structured",
      k: 20,
      scope: { collections: ["customer_events"] },
      where: { priority: { gte: 4 } },
      order_by: [{ field: "priority", direction: "desc" }],
    },
  }),
  rrf: (q) => ({
    path: "/search",
    body: {
      q,
      k: 20,
      sources: [
        { name: "words", mode: "text", scope: { collections: ["customer_events"] } },
        { name: "meaning", mode: "vector", scope: { collections: ["customer_events"] } },
      ],
      fuse: { kind: "rrf" },
    },
  }),
  view: (q) => ({
    path: "/views/customer_history/query",
    body: { customer: `customer-${q.length % 500}`, question: q },
  }),
};

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/** p50/p95/p99 latency and requests/s per search kind, at 1 and 8 concurrent clients. */
async function searchLatency(url: string, key: string) {
  const out: Record<string, Record<string, number>> = {};
  const requests = Math.max(50, Math.min(400, Math.floor(RECORDS / 50)));
  for (const [name, make] of Object.entries(SEARCHES)) {
    for (const clients of [1, 8]) {
      const times: number[] = [];
      let next = 0;
      let limit = 10;
      const client = async () => {
        while (next < limit) {
          const i = next++;
          const { path, body } = make(sentence(2 + (i % 3)));
          const t0 = performance.now();
          const res = await fetch(`${url}${path}`, {
            method: "POST",
            headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
            body: JSON.stringify(body),
          });
          if (res.status !== 200) throw new Error(`${name} failed: ${res.status} ${await res.text()}`);
          await res.arrayBuffer();
          times.push(performance.now() - t0);
        }
      };
      await client(); // warm-up: plans and caches, not measured
      next = 0;
      limit = requests;
      times.length = 0;
      const started = performance.now();
      await Promise.all(Array.from({ length: clients }, client));
      const elapsed = (performance.now() - started) / 1000;
      times.sort((a, b) => a - b);
      out[`${name} x${clients}`] = {
        p50: Number(percentile(times, 50).toFixed(1)),
        p95: Number(percentile(times, 95).toFixed(1)),
        p99: Number(percentile(times, 99).toFixed(1)),
        rps: Math.round(requests / elapsed),
      };
    }
  }
  return out;
}

const { db, label, drop } = await openBenchDb();
try {
  await migrate(db);
  const config = loadConfig({
    ...process.env,
    LOG_LEVEL: "silent",
    MAX_BATCH_RECORDS: String(Math.max(BATCH, 1000)),
  });
  const app = await buildApp({ config, db, version: "bench" });
  const url = await app.listen({ port: 0, host: "127.0.0.1" });
  const ws = await createWorkspace(db, "bench");
  const example = await exampleCatalogRequest(EXAMPLE_CATALOG_DIR);
  const published = await app.inject({
    method: "POST",
    url: "/catalog",
    headers: { authorization: `Bearer ${ws.api_key}` },
    payload: example,
  });
  if (published.statusCode !== 200) throw new Error(published.body);
  const figures = {
    // rows/s: a collection without processors (ready at write), one with processors (jobs queued),
    // write until the worker made every row ready, and one row per request.
    ingest_ready_rows_per_s: await ingest(url, ws.api_key, "learning_signals", BATCH),
    ingest_enrich_queued_rows_per_s: await ingest(url, ws.api_key, "customer_events", BATCH),
    write_to_ready_rows_per_s: await writeToReady(db, config, url, ws),
    ingest_single_row_per_s: await ingest(url, ws.api_key, "learning_signals", 1),
  };
  const latency = await searchLatency(url, ws.api_key);
  await app.close();
  const result = {
    date: new Date().toISOString(),
    db: label,
    records: RECORDS,
    batch: BATCH,
    clients: CLIENTS,
    machine: {
      cores: os.cpus().length,
      memory_gib: Math.round(os.totalmem() / 2 ** 30),
      node: process.version,
    },
    ingest: Object.fromEntries(Object.entries(figures).map(([k, v]) => [k, Math.round(v)])),
    search: latency,
  };
  console.log(
    `ingest on ${label}: ${RECORDS} rows, batches of ${BATCH} (single rows: batches of 1), ${CLIENTS} clients`,
  );
  console.table(result.ingest);
  console.log("search latency (ms) and throughput (requests/s) at 1 and 8 concurrent clients");
  console.table(result.search);
  await mkdir("bench/results", { recursive: true });
  await writeFile(
    `bench/results/${result.date.slice(0, 10)}-${label}.json`,
    `${JSON.stringify(result, null, 2)}\n`,
  );
} finally {
  await db.close();
  await drop();
}
