// GET /metrics (CONVENTIONS.md, "Keys and operations"): Prometheus text behind METRICS_TOKEN, a 404
// without it; under a small load (writes, searches of two modes, jobs through the worker, model
// calls through the fake provider, a 404, a database_busy refusal) each metric moves by what the
// load did, and no workspace, entity or record text appears anywhere in a scrape.
import type { ChildProcess } from "node:child_process";
import type { FastifyInstance } from "fastify";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requireCatalog } from "../../src/catalog/index.js";
import { ConfigError, loadConfig } from "../../src/config/index.js";
import { DERIVE_JOB } from "../../src/derivations/index.js";
import { buildApp } from "../../src/http/index.js";
import { startWorker } from "../../src/main.js";
import { createModels, ModelOutputError } from "../../src/models/index.js";
import { ENRICH_JOB } from "../../src/records/index.js";
import { enqueue, LeaseLostError } from "../../src/worker/queue.js";
import { type JobAttempt, type JobHandler, Worker } from "../../src/worker/runner.js";
import { createTestApp, type TestApp, testConfig } from "../support/app.js";
import { type CliStorage, cliStorage, collect, listening, startCli } from "../support/cli.js";
import { createTestDb } from "../support/db.js";
import { parse, type Sample, value } from "../support/metrics.js";
import { waitFor } from "../support/wait.js";

const TOKEN = "metrics-token-0123456789abcdef";
// What a scrape must never show: the workspace's name, an entity, record text.
const WORKSPACE = "acme-metrics-ws-5c1d";
const ENTITY = "cust-metrics-e7a2";
const TEXT = ["quokka invoice overdue since march", "quokka card declined twice", "quokka asks for refund"];

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const log = pino({ level: "silent" });

describe("GET /metrics without METRICS_TOKEN", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t?.close());

  it("answers the ordinary 404 not_found, with or without a key, and is not in /openapi.json", async () => {
    const ws = await t.workspace("no-metrics");
    for (const headers of [{}, ws.headers, bearer(TOKEN)]) {
      const res = await t.app.inject({ url: "/metrics", headers });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ status: 404, code: "not_found" });
    }
    const doc = (await t.app.inject({ url: "/openapi.json" })).json();
    expect(Object.keys(doc.paths)).not.toContain("/metrics");
  });
});

describe("GET /metrics when the database cannot be read", () => {
  it("still answers 200: engram_database_up 0, no job counts, the lag NaN (unknown)", async () => {
    const testDb = await createTestDb();
    const app = await buildApp({
      config: testConfig({ METRICS_TOKEN: TOKEN }),
      db: testDb.db,
      version: "test",
    });
    await testDb.close();
    try {
      const res = await app.inject({ url: "/metrics", headers: bearer(TOKEN) });
      expect(res.statusCode).toBe(200);
      const samples = parse(res.body);
      expect(value(samples, "engram_database_up")).toBe(0);
      expect(samples.some((s) => s.name === "engram_jobs")).toBe(false);
      expect(value(samples, "engram_oldest_unready_record_age_seconds")).toBeNaN();
      expect(value(samples, "process_resident_memory_bytes")).toBeGreaterThan(0);
    } finally {
      await app.close();
    }
  });
});

describe("engram serve with METRICS_TOKEN", () => {
  let storage: CliStorage;
  let child: ChildProcess;
  let exited: Promise<unknown>;
  let url: string;
  let key: string;

  beforeAll(async () => {
    storage = await cliStorage();
    child = startCli(["serve", "--port", "0", "--demo"], {
      ...storage.env,
      METRICS_TOKEN: TOKEN,
      LOG_LEVEL: "info",
    });
    const started = listening(child);
    exited = collect(child);
    const ready = await started;
    url = ready.url;
    key = /egk_[A-Za-z0-9_-]{43}/.exec(ready.stderr)?.[0] ?? "";
  });

  afterAll(async () => {
    child?.kill("SIGTERM");
    await exited;
    await storage.cleanup();
  });

  it("serves the in-process worker's jobs and model calls on the API port", async () => {
    const res = await fetch(`${url}/records`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({
        records: [{ collection: "customer_events", entity: "c1", type: "ticket", text: "hi" }],
      }),
    });
    expect(res.status).toBe(200);
    const scrape = async () =>
      parse(await (await fetch(`${url}/metrics`, { headers: bearer(TOKEN) })).text());
    const samples = await waitFor(async () => {
      const now = await scrape();
      return (
        value(now, "engram_job_duration_seconds_count", { kind: ENRICH_JOB, outcome: "succeeded" }) > 0 && now
      );
    });
    expect(
      value(samples, "engram_model_calls_total", { endpoint: "local", operation: "embed" }),
    ).toBeGreaterThan(0);
    expect(
      value(samples, "engram_http_requests_total", { method: "POST", route: "/records", status: "200" }),
    ).toBe(1);
  });
});

describe("METRICS_TOKEN", () => {
  it("refuses a token shorter than 16 characters or holding whitespace, naming the variable", () => {
    expect(() => loadConfig({ METRICS_TOKEN: "short" })).toThrow(ConfigError);
    expect(() => loadConfig({ METRICS_TOKEN: "has a space in it, long enough" })).toThrow(/METRICS_TOKEN/);
    expect(loadConfig({ METRICS_TOKEN: TOKEN }).metricsToken).toBe(TOKEN);
    expect(loadConfig({}).metricsToken).toBeUndefined();
  });
});

describe("GET /metrics with METRICS_TOKEN", () => {
  let t: TestApp;
  let ws: Awaited<ReturnType<TestApp["workspace"]>>;
  let recordIds: string[] = [];
  const scrape = async () => {
    const res = await t.app.inject({ url: "/metrics", headers: bearer(TOKEN) });
    expect(res.statusCode).toBe(200);
    return parse(res.body);
  };
  const post = (url: string, payload: object) =>
    t.app.inject({ method: "POST", url, headers: ws.headers, payload });
  const jobCounts = async (kind: string) => {
    const { rows } = await t.db.query<{ state: string; n: number; attempts: number }>(
      "SELECT state, count(*)::int AS n, sum(attempts)::int AS attempts FROM jobs WHERE kind = $1 GROUP BY state",
      [kind],
    );
    return rows;
  };
  /** Runs the worker (every kind but those excepted) until check holds, reporting to the app's metrics. */
  const runWorker = async (check: () => Promise<boolean>, except: string[] = []) => {
    const worker = await startWorker(t.db, testConfig(), log, { except, metrics: t.app.metrics });
    try {
      await waitFor(check);
    } finally {
      await worker.stop();
    }
  };

  beforeAll(async () => {
    // A route that fails as node-postgres does when no pooled connection frees up in time.
    const busy = (app: FastifyInstance) => {
      app.get("/test/busy", { schema: { hide: true } }, async () => {
        throw new Error("timeout exceeded when trying to connect");
      });
    };
    t = await createTestApp({ env: { METRICS_TOKEN: TOKEN }, routes: [busy] });
    ws = await t.workspace(WORKSPACE);
    await t.publishExample(ws.headers);
  });
  afterAll(() => t?.close());

  it("answers 401 without the token, with a wrong one or a workspace key; 200 in the text format with it", async () => {
    for (const headers of [
      {},
      bearer(`${TOKEN}x`),
      bearer(TOKEN.slice(0, -1)),
      ws.headers,
      { authorization: TOKEN },
    ]) {
      const res = await t.app.inject({ url: "/metrics", headers });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ status: 401, code: "unauthorized" });
    }
    const res = await t.app.inject({ url: "/metrics", headers: bearer(TOKEN) });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("text/plain; version=0.0.4; charset=utf-8");
    const samples = parse(res.body);
    // Process metrics beside Engram's own.
    expect(value(samples, "process_cpu_user_seconds_total")).toBeGreaterThan(0);
    expect(value(samples, "engram_database_up")).toBe(1);
    const doc = (await t.app.inject({ url: "/openapi.json" })).json();
    expect(Object.keys(doc.paths)).not.toContain("/metrics");
  });

  it("counts requests and their latencies by method, route pattern and status; unmatched for a 404 without a route", async () => {
    const before = await scrape();
    const missing = "00000000-0000-4000-8000-000000000000";
    await t.app.inject({ url: "/health" });
    await t.app.inject({ url: "/health" });
    expect((await t.app.inject({ url: `/records/${missing}`, headers: ws.headers })).statusCode).toBe(404);
    expect((await t.app.inject({ url: "/no/such/route", headers: ws.headers })).statusCode).toBe(404);
    const after = await scrape();
    const moved = (name: string, labels: Record<string, string>) =>
      value(after, name, labels) - value(before, name, labels);
    const health = { method: "GET", route: "/health", status: "200" };
    const record = { method: "GET", route: "/records/:id", status: "404" };
    const unmatched = { method: "GET", route: "unmatched", status: "404" };
    for (const [labels, n] of [
      [health, 2],
      [record, 1],
      [unmatched, 1],
    ] as const) {
      expect(moved("engram_http_requests_total", labels)).toBe(n);
      expect(moved("engram_http_request_duration_seconds_count", labels)).toBe(n);
      expect(moved("engram_http_request_duration_seconds_bucket", { ...labels, le: "+Inf" })).toBe(n);
    }
    expect(after.some((s) => s.labels.route?.includes(missing))).toBe(false);
  });

  it("counts 503 database_busy refusals", async () => {
    const before = value(await scrape(), "engram_database_busy_total");
    const res = await t.app.inject({ url: "/test/busy", headers: ws.headers });
    expect(res.statusCode).toBe(503);
    expect(res.json().code).toBe("database_busy");
    expect(value(await scrape(), "engram_database_busy_total")).toBe(before + 1);
  });

  it("reports the queue and the age of the oldest unready record, then the worker's attempts and model calls", async () => {
    const before = await scrape();
    recordIds = await t.writeRecords(
      ws.headers,
      TEXT.map((text) => ({
        collection: "customer_events",
        entity: ENTITY,
        type: "ticket",
        text,
        content: {},
      })),
    );
    const waiting = await scrape();
    const queued = (await jobCounts(ENRICH_JOB)).find((row) => row.state === "queued")?.n;
    expect(queued).toBeGreaterThan(0);
    expect(value(waiting, "engram_jobs", { kind: ENRICH_JOB, state: "queued" })).toBe(queued);
    expect(value(waiting, "engram_oldest_unready_record_age_seconds")).toBeGreaterThan(0);

    const unready = async () => {
      const { rows } = await t.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM records WHERE workspace_id = $1 AND NOT ready",
        [ws.id],
      );
      return rows[0]?.n === 0;
    };
    // Derivation runs the records' accumulator queues wait for the last test.
    await runWorker(unready, [DERIVE_JOB]);
    const after = await scrape();
    const moved = (name: string, labels: Record<string, string> = {}) =>
      value(after, name, labels) - value(before, name, labels);
    const jobs = await jobCounts(ENRICH_JOB);
    const succeeded = jobs.find((row) => row.state === "succeeded");
    expect(succeeded?.n).toBeGreaterThan(0);
    expect(moved("engram_job_attempts_total", { kind: ENRICH_JOB })).toBe(
      jobs.reduce((sum, row) => sum + row.attempts, 0),
    );
    expect(moved("engram_job_duration_seconds_count", { kind: ENRICH_JOB, outcome: "succeeded" })).toBe(
      succeeded?.n,
    );
    // Open states only, each kind's emptied count reading 0; finished jobs are the outcome counts.
    const enrichStates = after
      .filter((s) => s.name === "engram_jobs" && s.labels.kind === ENRICH_JOB)
      .map((s) => [s.labels.state, s.value]);
    expect(enrichStates).toEqual([
      ["queued", 0],
      ["running", 0],
      ["dead", 0],
    ]);
    expect(value(after, "engram_oldest_unready_record_age_seconds")).toBe(0);
    // The example's processors: one score of each event (urgency, alias chat), embeddings (alias embed).
    expect(moved("engram_model_calls_total", { endpoint: "fake", operation: "score" })).toBe(TEXT.length);
    expect(moved("engram_model_calls_total", { endpoint: "local", operation: "embed" })).toBeGreaterThan(0);
    expect(moved("engram_model_failures_total")).toBe(0);
  });

  it("times searches by mode; a hybrid search's query embedding is one model call", async () => {
    const before = await scrape();
    const text = await post("/search", { mode: "text", q: "quokka", scope: { entities: [ENTITY] } });
    expect(text.statusCode).toBe(200);
    expect(text.json().hits.length).toBeGreaterThan(0);
    const afterText = await scrape();
    const hybrid = await post("/search", {
      mode: "hybrid",
      q: "quokka refund",
      scope: { entities: [ENTITY] },
    });
    expect(hybrid.statusCode).toBe(200);
    const afterHybrid = await scrape();
    const moved = (from: Sample[], to: Sample[], name: string, labels: Record<string, string>) =>
      value(to, name, labels) - value(from, name, labels);
    const searches = "engram_search_duration_seconds_count";
    const embeds = { endpoint: "local", operation: "embed" };
    expect(moved(before, afterText, searches, { mode: "text" })).toBe(1);
    expect(moved(before, afterText, searches, { mode: "hybrid" })).toBe(0);
    expect(moved(before, afterText, "engram_model_calls_total", embeds)).toBe(0);
    expect(moved(afterText, afterHybrid, searches, { mode: "hybrid" })).toBe(1);
    expect(moved(afterText, afterHybrid, "engram_model_calls_total", embeds)).toBe(1);
    expect(
      moved(before, afterHybrid, "engram_http_requests_total", { route: "/search", status: "200" }),
    ).toBe(2);
  });

  it("embeds a query once for all of a search's sources: 8 hybrid sources, one model call", async () => {
    const before = await scrape();
    const sources = Array.from({ length: 8 }, (_, i) => ({
      name: `s${i + 1}`,
      mode: "hybrid",
      scope: { collections: ["customer_events"], entities: [ENTITY] },
      k: 5,
    }));
    const res = await post("/search", { q: "quokka refund", sources, fuse: { kind: "rrf" } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().hits.length).toBeGreaterThan(0);
    const after = await scrape();
    const embeds = { endpoint: "local", operation: "embed" };
    expect(
      value(after, "engram_model_calls_total", embeds) - value(before, "engram_model_calls_total", embeds),
    ).toBe(1);
  });

  it("counts a failed model call: a JSON task the fake provider has no script for", async () => {
    const before = await scrape();
    const catalog = await requireCatalog(t.db, ws.id);
    const models = createModels(catalog.index.models.def, {
      endpoints: [],
      onCall: t.app.metrics?.modelCall,
    });
    const task = { task: "unscripted", prompt: "Say something.", input: "x", schema: { type: "object" } };
    await expect(models.json("chat", task)).rejects.toThrow(ModelOutputError);
    const after = await scrape();
    const json = { endpoint: "fake", operation: "json" };
    const moved = (name: string) => value(after, name, json) - value(before, name, json);
    expect(moved("engram_model_calls_total")).toBe(1);
    expect(moved("engram_model_failures_total")).toBe(1);
    expect(value(after, "engram_model_tokens_total") - value(before, "engram_model_tokens_total")).toBe(0);
  });

  it("counts a derivation's tokens as its run reports them, and a job moving to dead", async () => {
    const before = await scrape();
    await t.db.transaction((tx) =>
      enqueue(tx, {
        workspaceId: ws.id,
        kind: DERIVE_JOB,
        payload: { derivation: "no_such_derivation", entity: ENTITY },
      }),
    );
    const run = await post("/processors/customer_profile/run", { entity: ENTITY });
    expect(run.statusCode).toBe(202);
    const finished = async () =>
      (await jobCounts(DERIVE_JOB)).every((row) => row.state === "succeeded" || row.state === "dead");
    await runWorker(finished);
    const after = await scrape();
    const moved = (name: string, labels: Record<string, string> = {}) =>
      value(after, name, labels) - value(before, name, labels);
    expect(moved("engram_jobs_dead_total", { kind: DERIVE_JOB })).toBe(1);
    expect(moved("engram_job_duration_seconds_count", { kind: DERIVE_JOB, outcome: "dead" })).toBe(1);
    expect(moved("engram_job_duration_seconds_count", { kind: DERIVE_JOB, outcome: "succeeded" })).toBe(1);
    expect(value(after, "engram_jobs", { kind: DERIVE_JOB, state: "dead" })).toBe(1);
    const runs = (await t.app.inject({ url: `/runs?entity=${ENTITY}`, headers: ws.headers })).json().runs;
    expect(runs).toHaveLength(1);
    const { model_usage: usage } = (
      await t.app.inject({ url: `/runs/${runs[0].id}`, headers: ws.headers })
    ).json();
    expect(usage.prompt_tokens).toBeGreaterThan(0);
    expect(moved("engram_model_tokens_total", { endpoint: "fake", type: "prompt" })).toBe(
      usage.prompt_tokens,
    );
    expect(moved("engram_model_tokens_total", { endpoint: "fake", type: "completion" })).toBe(
      usage.completion_tokens,
    );
    expect(moved("engram_model_calls_total", { endpoint: "fake", operation: "json" })).toBe(1);
  });

  it("times each attempt by its outcome: retried, dead when out of attempts, lease_lost, released at stop", async () => {
    const before = await scrape();
    const handlers: Record<string, JobHandler> = {
      probe_fail: async () => {
        throw new Error("probe failure");
      },
      probe_lost: async (job) => {
        throw new LeaseLostError(job.id);
      },
      // Works until the worker stops, then returns without ending the job (it is handed back).
      probe_stop: async (_job, ctx) => void (await waitFor(async () => ctx.stopping())),
    };
    const ids: Record<string, string> = {};
    for (const kind of Object.keys(handlers)) {
      ids[kind] = (
        await t.db.transaction((tx) => enqueue(tx, { workspaceId: ws.id, kind, payload: {} }))
      ).jobId;
    }
    await t.db.query("UPDATE jobs SET max_attempts = 2 WHERE workspace_id = $1 AND id = $2", [
      ws.id,
      ids.probe_fail,
    ]);
    const seen: JobAttempt[] = [];
    const worker = new Worker({
      db: t.db,
      log,
      handlers,
      pollMs: 20,
      onAttempt: (attempt) => {
        seen.push(attempt);
        t.app.metrics?.jobAttempt(attempt);
      },
    });
    await worker.start();
    try {
      await waitFor(async () => seen.some((a) => a.kind === "probe_fail"));
      // The retry without its backoff.
      await t.db.query("UPDATE jobs SET run_after = now() WHERE workspace_id = $1 AND id = $2", [
        ws.id,
        ids.probe_fail,
      ]);
      await waitFor(async () => seen.filter((a) => a.kind === "probe_fail").length === 2);
      await waitFor(async () => seen.some((a) => a.kind === "probe_lost"));
    } finally {
      await worker.stop();
    }
    expect(seen.map((a) => `${a.kind} ${a.outcome}`).sort()).toEqual([
      "probe_fail dead",
      "probe_fail retried",
      "probe_lost lease_lost",
      "probe_stop released",
    ]);
    const after = await scrape();
    const moved = (name: string, labels: Record<string, string>) =>
      value(after, name, labels) - value(before, name, labels);
    const durations = "engram_job_duration_seconds_count";
    expect(moved(durations, { kind: "probe_fail", outcome: "retried" })).toBe(1);
    expect(moved(durations, { kind: "probe_fail", outcome: "dead" })).toBe(1);
    expect(moved(durations, { kind: "probe_lost", outcome: "lease_lost" })).toBe(1);
    expect(moved(durations, { kind: "probe_stop", outcome: "released" })).toBe(1);
    expect(moved("engram_job_attempts_total", { kind: "probe_fail" })).toBe(2);
    expect(moved("engram_jobs_dead_total", { kind: "probe_fail" })).toBe(1);
    expect(value(after, "engram_jobs", { kind: "probe_fail", state: "dead" })).toBe(1);
    expect(value(after, "engram_jobs", { kind: "probe_stop", state: "queued" })).toBe(1);
  });

  it("reports the database pool: its size, idle connections and the callers waiting for one", async () => {
    const idle = await scrape();
    const { max } = t.db.connections();
    expect(value(idle, "engram_db_pool_max")).toBe(t.db.kind === "pglite" ? 1 : max);
    expect(value(idle, "engram_db_pool_waiting")).toBe(0);
    // Every connection held by a transaction, and two statements waiting for one.
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const holders = Array.from({ length: max }, () => t.db.transaction(() => gate));
    const waiters = [t.db.query("SELECT 1"), t.db.query("SELECT 1")];
    await waitFor(async () => t.db.connections().waiting === 2);
    const scraping = scrape();
    // The scrape read the pool, then queued its own statements behind the two.
    await waitFor(async () => t.db.connections().waiting === 3);
    release();
    const busy = await scraping;
    await Promise.all([...holders, ...waiters]);
    expect(value(busy, "engram_db_pool_connections")).toBe(max);
    expect(value(busy, "engram_db_pool_idle")).toBe(0);
    expect(value(busy, "engram_db_pool_waiting")).toBe(2);
    expect(t.db.connections()).toMatchObject({ waiting: 0 });
  });

  it("shows no workspace name or id, entity, record text, record id or key in any scrape", async () => {
    const res = await t.app.inject({ url: "/metrics", headers: bearer(TOKEN) });
    const forbidden = [WORKSPACE, ws.id, ws.key, ENTITY, ...recordIds, ...TEXT, "quokka"];
    expect(recordIds).toHaveLength(TEXT.length);
    for (const text of forbidden) expect(res.body).not.toContain(text);
    // Each label value is a route pattern or one of a fixed vocabulary.
    const values = new Set(parse(res.body).flatMap((s) => Object.values(s.labels)));
    for (const label of values) expect(label).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);
  });
});
