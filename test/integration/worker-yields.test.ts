// The worker shares its process with the HTTP API (engram serve). PGlite runs SQL on the main
// thread, so a job must let the event loop turn between its sub-batches, or requests (and the
// job's own lease heartbeat) wait until the whole job is done.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.js";
import { enrichAll } from "../support/worker.js";

describe("the worker between sub-batches", () => {
  let t: TestApp;
  let headers: { authorization: string };
  let workspaceId: string;

  beforeAll(async () => {
    t = await createTestApp();
    const ws = await t.workspace("yields");
    headers = ws.headers;
    workspaceId = ws.id;
    await t.publishExample(headers);
  });
  afterAll(() => t.close());

  it("lets timers and requests run while one job enriches many records", async () => {
    const records = Array.from({ length: 240 }, (_, i) => ({
      collection: "customer_events",
      entity: `c-${i % 7}`,
      type: "ticket",
      text: `ticket ${i} about billing and refunds, number ${i * 7}`,
    }));
    const res = await t.app.inject({ method: "POST", url: "/records", headers, payload: { records } });
    expect(res.statusCode, res.body).toBe(200);
    let last = performance.now();
    let longestGap = 0;
    const ticker = setInterval(() => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
    }, 5);
    const started = performance.now();
    try {
      // One write, one job of 240 records in sub-batches of 8.
      await enrichAll(t.db, workspaceId, { env: { ENRICH_EMBED_BATCH: "8", ENRICH_LLM_BATCH: "8" } });
    } finally {
      clearInterval(ticker);
    }
    const drain = performance.now() - started;
    // The drain takes many sub-batches; the event loop never waits for more than a few of them.
    expect(longestGap, `longest gap ${longestGap} ms during a ${drain} ms drain`).toBeLessThan(
      Math.max(500, drain / 4),
    );
  });
});
