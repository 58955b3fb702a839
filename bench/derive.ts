// npm run bench:derive — the derivation figures (a benchmark, not a test):
// 1. one run over 200 evidence records, outside the model call (read sources, render evidence,
//    validate the emission, write and commit), p50/p95 over repeated runs with the fake model;
// 2. the queue's throughput of derivation jobs per second across many entities (one worker,
//    default concurrency), fake model.
// Uses DATABASE_URL when set (a scratch database), else in-memory PGlite.
import { pino } from "pino";
import { publishCatalog } from "../src/catalog/index.js";
import { loadConfig } from "../src/config/index.js";
import { prepareDatabase } from "../src/database.js";
import { catalogDeps, modelsResolver, wireModules } from "../src/deps.js";
import { DERIVE_JOB, deriveHandler, enqueueDerivation } from "../src/derivations/index.js";
import type { Models } from "../src/models/index.js";
import type { Workspace } from "../src/platform/workspace.js";
import { writeRecords } from "../src/records/index.js";
import { claimJobs } from "../src/worker/queue.js";
import { Worker } from "../src/worker/runner.js";
import { createWorkspace } from "../src/workspaces/index.js";
import { MINIMAL_PACKAGE } from "../test/support/catalog-files.js";
import { derivationFiles, derivationYaml } from "../test/support/derivations.js";
import { FAKE_MODELS_ONLY, openBenchDb } from "./setup.js";

const EVIDENCE = 200;
const RUNS = Number(process.env.BENCH_DERIVE_RUNS ?? 30);
const ENTITIES = Number(process.env.BENCH_DERIVE_ENTITIES ?? 200);
const LIMITS =
  "{ max_tasks: 1, max_llm_calls: 1, max_retrieved_records: 400, max_visible_records: 400, max_total_tokens: 200000, max_wall_s: 120 }";
const SCRIPT = {
  digest: { records: [{ key: "summary", text: "Digest of the notes", citations: "{{evidence.ids}}" }] },
};

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

const bench = await openBenchDb();
const { db } = bench;
try {
  await prepareDatabase(db);
  wireModules();
  const created = await createWorkspace(db, "bench-derive");
  const workspace: Workspace = { id: created.id, name: created.workspace };
  await publishCatalog(catalogDeps(db, loadConfig({})), workspace, {
    package: MINIMAL_PACKAGE,
    files: derivationFiles([derivationYaml("digest", { limits: LIMITS })]),
  });
  const write = (entity: string, n: number) =>
    writeRecords(
      db,
      workspace,
      Array.from({ length: n }, (_, i) => ({
        collection: "notes",
        entity,
        type: "note",
        text: `Note ${i} about ${entity}: invoice ${i * 7} was paid ${i % 5} days late, asked about the portal`,
      })),
      { maxBatch: 1000 },
    );
  await write("e-run", EVIDENCE);

  // 1. One run's own work: the handler's time minus the time inside the model call.
  let modelMs = 0;
  const base = modelsResolver(FAKE_MODELS_ONLY, { fakeScript: SCRIPT });
  const timed = (catalog: Parameters<typeof base>[0]): Models => {
    const models = base(catalog);
    return {
      ...models,
      embed: models.embed.bind(models),
      score: models.score.bind(models),
      rerank: models.rerank.bind(models),
      json: async (alias, input) => {
        const began = performance.now();
        try {
          return await models.json(alias, input);
        } finally {
          modelMs += performance.now() - began;
        }
      },
    };
  };
  const handler = deriveHandler({ models: timed });
  const log = pino({ level: "silent" });
  const own: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    await db.query("UPDATE derivation_state SET watermark_seq = 0 WHERE workspace_id = $1", [created.id]);
    await db.transaction((tx) =>
      enqueueDerivation(tx, {
        workspaceId: created.id,
        derivation: "digest",
        entity: "e-run",
        reason: { on: "manual", trigger: null },
      }),
    );
    const [job] = await claimJobs(db, { owner: "bench", kinds: [DERIVE_JOB], leaseSeconds: 60, limit: 1 });
    if (!job) throw new Error("no derivation job to claim");
    modelMs = 0;
    const began = performance.now();
    await handler(job, { db, owner: "bench", log, stopping: () => false });
    own.push(performance.now() - began - modelMs);
  }
  const { rows: statuses } = await db.query<{ status: string; n: number }>(
    "SELECT status, count(*)::int AS n FROM runs WHERE workspace_id = $1 GROUP BY status",
    [created.id],
  );
  own.sort((a, b) => a - b);

  // 2. Throughput across entities.
  for (let i = 0; i < ENTITIES; i += 100) {
    await writeRecords(
      db,
      workspace,
      Array.from({ length: Math.min(100, ENTITIES - i) * 5 }, (_, j) => ({
        collection: "notes",
        entity: `e${i + Math.floor(j / 5)}`,
        type: "note",
        text: `Entity note ${j % 5}: renewal due, prefers email, ticket ${j}`,
      })),
      { maxBatch: 1000 },
    );
  }
  await db.transaction(async (tx) => {
    for (let i = 0; i < ENTITIES; i++) {
      await enqueueDerivation(tx, {
        workspaceId: created.id,
        derivation: "digest",
        entity: `e${i}`,
        reason: { on: "manual", trigger: null },
      });
    }
  });
  const worker = new Worker({
    db,
    log,
    handlers: { [DERIVE_JOB]: deriveHandler({ models: base }) },
    pollMs: 10,
  });
  const began = performance.now();
  await worker.start();
  for (;;) {
    const { rows } = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM jobs WHERE workspace_id = $1 AND kind = $2 AND state IN ('queued', 'running')",
      [created.id, DERIVE_JOB],
    );
    if (rows[0]?.n === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const seconds = (performance.now() - began) / 1000;
  await worker.stop();
  console.log(`derivations on ${bench.label} (fake model)`);
  console.log(
    `  run over ${EVIDENCE} evidence records, outside the model: p50 ${quantile(own, 0.5).toFixed(1)} ms, p95 ${quantile(own, 0.95).toFixed(1)} ms (${RUNS} runs; ${JSON.stringify(statuses)})`,
  );
  console.log(
    `  queue: ${ENTITIES} entities x 5 notes in ${seconds.toFixed(2)} s = ${(ENTITIES / seconds).toFixed(0)} derivation jobs/s`,
  );
} finally {
  await bench.close();
}
