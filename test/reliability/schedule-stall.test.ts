// One tenant's schedule does not stall the server (docs/catalog.md, "Triggers"): workspace A holds
// 10,000 entities with new evidence and a cron derivation whose task fails. An every-second
// schedule is refused at publish; with the smallest one allowed, the next tick (driven here rather
// than waited for) queues at most 1,000 jobs in short transactions, which the worker runs (and
// fails) while workspace B writes: GET /health answers within 2 s every time, B's record is ready
// within 5 s, and A holds at most 2,000 derivation jobs. Before the bounds, one tick queued 10,000
// jobs in one transaction (embedded storage's only connection) every 15 s, and the server froze.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CRON_ENTITIES_MAX, runCronTriggers } from "../../src/derivations/index.js";
import type { Worker } from "../../src/worker/index.js";
import { createTestApp, type TestApp } from "../support/app.js";
import { MINIMAL_PACKAGE } from "../support/catalog-files.js";
import { derivationFiles, derivationYaml } from "../support/derivations.js";
import { waitFor } from "../support/wait.js";
import { startTestWorker } from "../support/worker.js";

const ENTITIES = 10_000;
const HEALTH_MS = 2_000;
const READY_MS = 5_000;

/** A's package: a cron derivation whose task the fake provider has no script for (it fails). */
const schedule = (cron: string) => ({
  package: MINIMAL_PACKAGE,
  files: derivationFiles(
    [derivationYaml("sweep", { trigger: `    trigger: { on: cron, cron: "${cron}" }\n` })],
    {
      triggers: ["sweep.default"],
    },
  ),
});

describe("a failing schedule over 10,000 entities beside another workspace", () => {
  let t: TestApp;
  let a: Awaited<ReturnType<TestApp["workspace"]>>;
  let b: Awaited<ReturnType<TestApp["workspace"]>>;
  let worker: Worker | undefined;

  beforeAll(async () => {
    t = await createTestApp();
    a = await t.workspace("scheduler");
    b = await t.workspace("neighbour");
    await t.publishExample(b.headers);
    const published = await t.publish(a.headers, schedule("*/5 * * * *"));
    expect(published.statusCode, published.body).toBe(200);
    for (let at = 0; at < ENTITIES; at += 1000) {
      await t.writeRecords(
        a.headers,
        Array.from({ length: 1000 }, (_, i) => ({
          collection: "notes",
          entity: `e-${String(at + i).padStart(5, "0")}`,
          type: "note",
          text: `Evidence ${at + i}`,
        })),
      );
    }
  }, 120_000);
  afterAll(async () => {
    await worker?.stop();
    await t.close();
  });

  it("refuses an every-second schedule at publish, naming the minimum", async () => {
    const res = await t.publish(a.headers, schedule("* * * * * *"));
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toMatch(/at most once every 300 s/);
  });

  it("with the smallest schedule allowed, health answers, B's write is ready in time, A queues at most 2,000 jobs", async () => {
    // The tick seen first is only recorded; the next one fires.
    expect(await runCronTriggers(t.db, new Date("2026-12-01T10:01:00Z"))).toBe(0);
    worker = await startTestWorker(t.db, {}, { derive: true });
    const health: { ms: number; status: number }[] = [];
    let polling = true;
    const poll = (async () => {
      while (polling) {
        const started = performance.now();
        const res = await t.app.inject({ url: "/health" });
        health.push({ ms: performance.now() - started, status: res.statusCode });
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    try {
      const fired = runCronTriggers(t.db, new Date("2026-12-01T10:06:00Z"));
      const written = performance.now();
      const [id] = await t.writeRecords(b.headers, [
        { collection: "customer_events", entity: "b", type: "ticket", text: "Card declined at checkout" },
      ]);
      await waitFor(
        async () => (await t.app.inject({ url: `/records/${id}`, headers: b.headers })).json().ready === true,
        30_000,
      );
      const readyMs = performance.now() - written;
      expect(await fired).toBe(CRON_ENTITIES_MAX);
      // Let the worker run A's failing jobs for a while beside the probes.
      await waitFor(async () => {
        const { rows } = await t.db.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM runs WHERE workspace_id = $1 AND status = 'failed'",
          [a.id],
        );
        return (rows[0]?.n ?? 0) >= 100;
      }, 60_000);
      const { rows } = await t.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM jobs WHERE workspace_id = $1 AND kind = 'derive'",
        [a.id],
      );
      console.log(
        `schedule-stall: ${health.length} health probes, slowest ${Math.max(...health.map((h) => h.ms)).toFixed(0)} ms; B ready in ${readyMs.toFixed(0)} ms; A's derive jobs ${rows[0]?.n}`,
      );
      expect(readyMs).toBeLessThan(READY_MS);
      expect(rows[0]?.n).toBeLessThanOrEqual(2_000);
      expect(health.length).toBeGreaterThan(0);
      for (const probe of health) {
        expect(probe.status).toBe(200);
        expect(probe.ms).toBeLessThan(HEALTH_MS);
      }
    } finally {
      polling = false;
      await poll;
    }
  }, 120_000);
});
