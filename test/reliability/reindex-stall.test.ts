// One tenant's maintenance does not stall another (docs/api.md, "POST /reindex"): workspace A
// rebuilds the projection of 10,000 records (reset) while workspace B writes and reads; B's p99
// stays within 3x its idle figure, and a second reindex request while A's jobs are open queues
// nothing. Before, B's write took 6,020 ms (26-75 ms idle) and its timeline 4,261 ms.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Worker } from "../../src/worker/index.js";
import { createTestApp, type TestApp } from "../support/app.js";
import { percentile } from "../support/latency.js";
import { waitFor } from "../support/wait.js";
import { startTestWorker } from "../support/worker.js";

const RECORDS = 10_000;
/**
 * A p99 this small is noise on a loaded machine: the bound is 3x this at least. The suite runs two
 * files at once on two cores, and a CI run measured B at 22 ms idle, 528 ms p99 during (max 1.8 s)
 * from that alone; the 1.2 s bound still fails the 6 s stall a reset once caused.
 */
const FLOOR_MS = 400;

describe("a reindex reset over 10,000 records beside another workspace", () => {
  let t: TestApp;
  let a: Awaited<ReturnType<TestApp["workspace"]>>;
  let b: Awaited<ReturnType<TestApp["workspace"]>>;
  let worker: Worker | undefined;
  let n = 0;

  /** One write and one timeline read of B; each latency in ms. */
  async function bRound(): Promise<number[]> {
    const times: number[] = [];
    let started = performance.now();
    const write = await t.app.inject({
      method: "POST",
      url: "/records",
      headers: b.headers,
      payload: { records: [{ collection: "notes", entity: "b", type: "note", text: `b ${n++}` }] },
    });
    times.push(performance.now() - started);
    expect(write.statusCode, write.body).toBe(200);
    started = performance.now();
    const read = await t.app.inject({ url: "/timeline?entity=b&limit=20", headers: b.headers });
    times.push(performance.now() - started);
    expect(read.statusCode).toBe(200);
    return times;
  }

  const openReindexJobs = async () => {
    const { rows } = await t.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM jobs WHERE workspace_id = $1 AND kind = 'reindex' AND state IN ('queued', 'running')",
      [a.id],
    );
    return rows[0]?.n ?? 0;
  };

  beforeAll(async () => {
    t = await createTestApp();
    a = await t.workspace("maintained");
    b = await t.workspace("neighbour");
    const { MINIMAL_PACKAGE, minimalFiles } = await import("../support/catalog-files.js");
    for (const ws of [a, b]) {
      const res = await t.publish(ws.headers, { package: MINIMAL_PACKAGE, files: minimalFiles() });
      expect(res.statusCode, res.body).toBe(200);
    }
    for (let at = 0; at < RECORDS; at += 1000) {
      await t.writeRecords(
        a.headers,
        Array.from({ length: 1000 }, (_, i) => ({
          collection: "notes",
          entity: `e-${(at + i) % 500}`,
          type: "note",
          text: `Evidence ${at + i} about refunds and invoices`,
        })),
      );
    }
    worker = await startTestWorker(t.db);
  }, 120_000);
  afterAll(async () => {
    await worker?.stop();
    await t.close();
  });

  it("keeps B's p99 within 3x idle; a second request queues nothing", async () => {
    const idle: number[] = [];
    for (let i = 0; i < 20; i++) idle.push(...(await bRound()));
    const res = await t.app.inject({
      method: "POST",
      url: "/reindex",
      headers: a.headers,
      payload: { reset: true },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().enqueued_jobs).toBe(RECORDS / 1000);
    const again = await t.app.inject({
      method: "POST",
      url: "/reindex",
      headers: a.headers,
      payload: { reset: true },
    });
    expect(again.statusCode).toBe(409);
    expect(await openReindexJobs()).toBeLessThanOrEqual(RECORDS / 1000);
    const during: number[] = [];
    while ((await openReindexJobs()) > 0) during.push(...(await bRound()));
    await waitFor(async () => (await openReindexJobs()) === 0);
    const idleP99 = percentile(idle, 99);
    const duringP99 = percentile(during, 99);
    console.log(
      `reindex-stall: B idle p99 ${idleP99.toFixed(1)} ms (n ${idle.length}), during A's reindex p99 ${duringP99.toFixed(1)} ms (n ${during.length}), max ${Math.max(...during).toFixed(1)} ms`,
    );
    expect(during.length).toBeGreaterThan(0);
    expect(duringP99).toBeLessThanOrEqual(3 * Math.max(idleP99, FLOOR_MS));
  }, 120_000);
});
