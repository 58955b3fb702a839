// `engram worker --metrics-port`: a worker run apart from `engram serve` exports its own job
// attempts and model calls on a port of its own, behind METRICS_TOKEN, and serves nothing else.
import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp } from "../support/app.js";
import { type CliResult, type CliStorage, cliStorage, runCli, startMeteredWorker } from "../support/cli.js";
import { parse, value } from "../support/metrics.js";
import { waitFor } from "../support/wait.js";

const TOKEN = "worker-metrics-token-7f3a9c";
const EVENTS = 3;

describe("engram worker --metrics-port", () => {
  let storage: CliStorage;
  let child: ChildProcess;
  let exited: Promise<CliResult>;
  let url: string;
  const scrape = (token = TOKEN) =>
    fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${token}` } });

  beforeAll(async () => {
    storage = await cliStorage();
    // Records waiting for enrichment, written before the worker starts (the embedded store has
    // one holder at a time).
    const db = await storage.open();
    const api = await createTestApp({ testDb: { db, url: undefined, close: () => storage.release(db) } });
    try {
      const ws = await api.workspace("metered");
      await api.publishExample(ws.headers);
      await api.writeRecords(
        ws.headers,
        Array.from({ length: EVENTS }, (_, i) => ({
          collection: "customer_events",
          entity: "acme",
          type: "note",
          text: `note ${i}`,
        })),
      );
    } finally {
      await api.close();
    }
    ({ child, exited, url } = await startMeteredWorker(storage.env, TOKEN));
  }, 90_000);

  afterAll(async () => {
    child?.kill("SIGTERM");
    await exited;
    await storage?.cleanup();
  });

  it("exports the enrichment it ran: attempts, durations by outcome and model calls", async () => {
    const samples = await waitFor(async () => {
      const res = await scrape();
      if (res.status !== 200) return undefined;
      const parsed = parse(await res.text());
      const done = value(parsed, "engram_job_duration_seconds_count", {
        kind: "enrich",
        outcome: "succeeded",
      });
      // Done: nothing queued and nothing running (a claimed job is neither queued nor finished).
      const left = ["queued", "running"].map((state) =>
        value(parsed, "engram_jobs", { kind: "enrich", state }),
      );
      return done > 0 && left.every((n) => n === 0) && parsed;
    }, 60_000);
    expect(value(samples, "engram_job_attempts_total", { kind: "enrich" })).toBeGreaterThan(0);
    expect(value(samples, "engram_model_calls_total", { operation: "embed" })).toBeGreaterThan(0);
    expect(value(samples, "engram_oldest_unready_record_age_seconds")).toBe(0);
    expect(value(samples, "engram_database_up")).toBe(1);
  });

  it("refuses a scrape without the token, and serves only /metrics and /health", async () => {
    const refused = await scrape("not-the-token-at-all-000");
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ status: 401, code: "unauthorized" });
    const health = await fetch(`${url}/health`);
    expect(await health.json()).toEqual({ ok: true, db: true });
    const other = await fetch(`${url}/records?entity=acme`);
    expect(other.status).toBe(404);
    expect(other.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(await other.json()).toMatchObject({ status: 404, code: "not_found" });
  });

  it("stops on SIGTERM with exit code 0", async () => {
    child.kill("SIGTERM");
    expect((await exited).code).toBe(0);
  });
});

describe("engram worker --metrics-port without METRICS_TOKEN", () => {
  it("refuses with exit 1 and says what to set; a port that is not one is refused too", async () => {
    const storage = await cliStorage();
    try {
      const result = await runCli(["worker", "--metrics-port", "0"], storage.env);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain("set METRICS_TOKEN");
      const bad = await runCli(["worker", "--metrics-port", "http"], storage.env);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain("expected a port number");
    } finally {
      await storage.cleanup();
    }
  });
});
