import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workerHandlers } from "../../src/deps.js";
import { BACKFILL_JOB } from "../../src/records/backfill.js";
import { Worker } from "../../src/worker/runner.js";
import { createTestApp, type TestApp, testConfig } from "../support/app.js";
import { exampleRequest } from "../support/example-catalog.js";
import { waitFor } from "../support/wait.js";

describe("backfill", () => {
  let t: TestApp;
  let headers: { authorization: string };
  let ids: string[];
  const post = (payload: object) => t.app.inject({ method: "POST", url: "/backfill", headers, payload });
  const get = async (id: string) => (await t.app.inject({ url: `/backfill/${id}`, headers })).json();

  /** Runs only backfill jobs (enrichment stays queued, so readiness does not move). */
  async function runBackfills<T>(until: () => Promise<T | undefined | false>): Promise<T> {
    const handlers = await workerHandlers(testConfig({ BACKFILL_BATCH: "2" }));
    const worker = new Worker({
      db: t.db,
      log: pino({ level: "silent" }),
      handlers: { [BACKFILL_JOB]: handlers[BACKFILL_JOB] as never },
      pollMs: 20,
    });
    await worker.start();
    try {
      return await waitFor(until);
    } finally {
      await worker.stop();
    }
  }
  const settled = (id: string) => async () => {
    const handle = await get(id);
    return ["done", "cancelled", "failed"].includes(handle.state) ? handle : undefined;
  };

  beforeAll(async () => {
    t = await createTestApp();
    ({ headers } = await t.workspace("backfill"));
    await t.publishExample(headers);
    const records = Array.from({ length: 5 }, (_, i) => ({
      collection: "customer_events",
      entity: "c1",
      type: "ticket",
      text: `ticket ${i}`,
      ...(i === 0 ? { scores: { urgency: 0.99 } } : {}),
    }));
    const res = await t.app.inject({ method: "POST", url: "/records", headers, payload: { records } });
    ids = res.json().inserted.map((i: any) => i.id);
  });
  afterAll(() => t.close());

  it("refuses an unknown processor and a processor that does not take the collection", async () => {
    expect((await post({ collection: "customer_events", version: 1, processor: "nope" })).statusCode).toBe(
      422,
    );
    expect((await post({ collection: "pages", version: 1, processor: "urgency" })).statusCode).toBe(422);
    expect((await post({ collection: "customer_events", version: 9, processor: "urgency" })).statusCode).toBe(
      422,
    );
  });

  it("slices with max_rows, continuing where the last slice stopped", async () => {
    const res = await post({ collection: "customer_events", version: 1, processor: "urgency", max_rows: 3 });
    expect(res.statusCode).toBe(202);
    expect(res.json()).toMatchObject({
      state: "queued",
      scanned: 0,
      annotated: 0,
      max_rows: 3,
      cursor_seq: 0,
    });
    const first = await runBackfills(settled(res.json().id));
    expect(first).toMatchObject({ state: "done", scanned: 3, annotated: 2, last_error: null });
    const next = await post({ collection: "customer_events", version: 1, processor: "urgency", max_rows: 3 });
    expect(next.json().cursor_seq).toBe(first.cursor_seq);
    const second = await runBackfills(settled(next.json().id));
    expect(second).toMatchObject({ state: "done", scanned: 2, annotated: 2 });
  });

  it("never overwrites an existing result and leaves readiness alone", async () => {
    const records = await Promise.all(
      ids.map(async (id) => (await t.app.inject({ url: `/records/${id}`, headers })).json()),
    );
    expect(records[0].scores.urgency).toBe(0.99);
    for (const record of records) {
      expect(record.scores.urgency).toBeGreaterThanOrEqual(0);
      expect(record.ready).toBe(false);
    }
  });

  it("allows one live backfill per target", async () => {
    const first = await post({ collection: "customer_events", version: 1, processor: "embedder" });
    expect(first.statusCode).toBe(202);
    const second = await post({ collection: "customer_events", version: 1, processor: "embedder" });
    expect(second.statusCode).toBe(409);
    expect(second.json().code).toBe("backfill_exists");
    // Cancelled before a worker ran it: stops at the first batch boundary, nothing written.
    const cancel = await t.app.inject({
      method: "POST",
      url: `/backfill/${first.json().id}/cancel`,
      headers,
    });
    expect(cancel.json().cancel_requested).toBe(true);
    const handle = await runBackfills(settled(first.json().id));
    expect(handle).toMatchObject({ state: "cancelled", scanned: 0 });
    expect(
      (await post({ collection: "customer_events", version: 1, processor: "embedder" })).statusCode,
    ).toBe(202);
  });

  it("finishes with cursor_seq 0 when nothing is eligible", async () => {
    const res = await post({ collection: "pages", version: 1, processor: "embedder" });
    const handle = await runBackfills(settled(res.json().id));
    expect(handle).toMatchObject({ state: "done", cursor_seq: 0, scanned: 0, annotated: 0 });
  });

  it("fails with last_error when its processor leaves the package", async () => {
    const base = await exampleRequest();
    const staged = { ...base.files };
    staged["processors/enrichment.yaml"] = `${staged["processors/enrichment.yaml"]}
  - name: scorer_v2
    kind: score
    input: { collections: [customer_events] }
    model: chat
    scale: [0, 1]
    default: 0
    prompt: Rate it.
`;
    staged["packages/support.yaml"] = (staged["packages/support.yaml"] as string)
      .replace("version: 1.0.0", "version: 1.5.0")
      .replace(
        "processors: [embedder, urgency, customer_profile]",
        "processors: [embedder, urgency, scorer_v2, customer_profile]",
      );
    const published = await t.app.inject({
      method: "POST",
      url: "/catalog",
      headers,
      payload: { package: "support@1.5.0", files: staged },
    });
    expect(published.statusCode, published.body).toBe(200);
    const res = await post({ collection: "customer_events", version: 1, processor: "scorer_v2" });
    expect(res.statusCode).toBe(202);
    // Rolling back to the first package removes the processor before the backfill runs.
    expect((await t.app.inject({ method: "POST", url: "/catalog", headers, payload: base })).statusCode).toBe(
      200,
    );
    const handle = await runBackfills(settled(res.json().id));
    expect(handle.state).toBe("failed");
    expect(handle.last_error).toContain("scorer_v2");
  });

  it("lists recent backfills and hides other workspaces' ones", async () => {
    const list = (await t.app.inject({ url: "/backfill", headers })).json().backfills;
    expect(list.length).toBeGreaterThanOrEqual(4);
    const other = await t.workspace("backfill-other");
    expect((await t.app.inject({ url: `/backfill/${list[0].id}`, headers: other.headers })).statusCode).toBe(
      404,
    );
  });
});
