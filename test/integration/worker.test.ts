import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workerHandlers } from "../../src/deps.js";
import { claimJobs, enqueue, fence, LeaseLostError } from "../../src/worker/queue.js";
import { mustWait, Worker } from "../../src/worker/runner.js";
import { createWorkspace } from "../../src/workspaces/index.js";
import { createTestApp, type TestApp, testConfig } from "../support/app.js";
import { createTestDb } from "../support/db.js";
import { waitFor } from "../support/wait.js";

const silent = pino({ level: "silent" });

describe("the worker", () => {
  let t: TestApp;
  let headers: { authorization: string };
  let workspaceId: string;
  const write = async (records: unknown[]) => {
    const res = await t.app.inject({ method: "POST", url: "/records", headers, payload: { records } });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().inserted as { id: string; ready: boolean }[];
  };
  const record = async (id: string) => (await t.app.inject({ url: `/records/${id}`, headers })).json();

  beforeAll(async () => {
    t = await createTestApp();
    const ws = await t.workspace("worker");
    headers = ws.headers;
    workspaceId = ws.id;
    await t.publishExample(headers);
  });
  afterAll(() => t.close());

  it("makes records ready once their required processors ran, with the search projection", async () => {
    const worker = new Worker({
      db: t.db,
      log: silent,
      handlers: await workerHandlers(testConfig()),
      pollMs: 50,
    });
    await worker.start();
    try {
      const inserted = await write([
        {
          collection: "customer_events",
          entity: "c1",
          type: "ticket",
          text: "Card declined twice at checkout",
          content: { topic: "billing" },
        },
        {
          collection: "customer_facts",
          entity: "c1",
          type: "fact",
          key: "plan",
          text: "On the pro plan",
          content: { value: "pro" },
        },
      ]);
      expect(inserted.every((i) => !i.ready)).toBe(true);
      const [event, fact] = await Promise.all(
        inserted.map((i) => waitFor(async () => ((await record(i.id)).ready ? record(i.id) : undefined))),
      );
      expect(event.scores.urgency).toBeGreaterThanOrEqual(0);
      expect(event.scores.urgency).toBeLessThanOrEqual(1);
      expect(fact.scores).toEqual({});
      const { rows } = await t.db.query<{ record_id: string; space: string; dims: number; indexed: boolean }>(
        `SELECT e.record_id, e.space, r.search_text IS NOT NULL AS indexed,
           ${t.db.hasVector ? "vector_dims(e.embedding)" : "cardinality(e.embedding)"} AS dims
         FROM embeddings e JOIN records r ON r.workspace_id = e.workspace_id AND r.id = e.record_id
         WHERE e.workspace_id = $1 ORDER BY r.seq`,
        [workspaceId],
      );
      expect(rows).toEqual([
        { record_id: event.id, space: "wink-sg-100d-v1", dims: 100, indexed: true },
        { record_id: fact.id, space: "wink-sg-100d-v1", dims: 100, indexed: true },
      ]);
      // The projected field (topic) is in the full-text vector.
      const { rows: matched } = await t.db.query(
        "SELECT id FROM records WHERE workspace_id = $1 AND search_text @@ to_tsquery('english', 'billing')",
        [workspaceId],
      );
      expect(matched.map((r: any) => r.id)).toEqual([event.id]);
      const jobs = await t.db.query<{ state: string }>(
        "SELECT state FROM jobs WHERE workspace_id = $1 AND kind = 'enrich'",
        [workspaceId],
      );
      expect(jobs.rows.every((j) => j.state === "succeeded")).toBe(true);
    } finally {
      await worker.stop();
    }
  });

  it("makes rows of collections without processors ready and searchable at write", async () => {
    const [row] = await write([
      { collection: "learning_signals", entity: "c1", type: "note", text: "a helpful agent" },
    ]);
    expect(row?.ready).toBe(true);
    const { rows } = await t.db.query(
      "SELECT search_text IS NOT NULL AS indexed FROM records WHERE id = $1",
      [row?.id],
    );
    expect(rows[0]).toEqual({ indexed: true });
  });

  it("coalesces a second request for the same queued work", async () => {
    const [a, b] = await t.db.transaction(async (tx) => [
      await enqueue(tx, { workspaceId, kind: "probe", payload: {}, coalesceKey: "same" }),
      await enqueue(tx, { workspaceId, kind: "probe", payload: {}, coalesceKey: "same" }),
    ]);
    expect(a?.coalesced).toBe(false);
    expect(b).toMatchObject({ coalesced: true, jobId: a?.jobId });
  });

  it("claims at most the limit, oldest first, even when more jobs are due", async () => {
    // A fresh database analyzed while its jobs table holds one job: the planner then rescanned
    // the pick once per job row, and the claim took every due job (PGlite wedged on it).
    const fresh = await createTestDb();
    try {
      const ws = await createWorkspace(fresh.db, "claim-limit");
      const enqueued: string[] = [];
      for (let i = 0; i < 5; i++) {
        if (i === 1) await fresh.db.exec("ANALYZE jobs");
        const { jobId } = await fresh.db.transaction((tx) =>
          enqueue(tx, {
            workspaceId: ws.id,
            kind: "limit_probe",
            payload: {},
            runAfter: new Date(Date.now() - (5 - i) * 1000),
          }),
        );
        enqueued.push(jobId);
      }
      const claim = (limit: number) =>
        claimJobs(fresh.db, { owner: "worker-limit", kinds: ["limit_probe"], leaseSeconds: 30, limit });
      expect((await claim(2)).map((job) => job.id)).toEqual(enqueued.slice(0, 2));
      expect((await claim(2)).map((job) => job.id)).toEqual(enqueued.slice(2, 4));
      expect((await claim(2)).map((job) => job.id)).toEqual(enqueued.slice(4));
    } finally {
      await fresh.close();
    }
  });

  it("waits before claiming again unless every free slot was just filled", () => {
    expect(mustWait(2, 2)).toBe(false);
    expect(mustWait(2, 1)).toBe(true);
    expect(mustWait(2, 0)).toBe(true);
    expect(mustWait(0, 0)).toBe(true);
    // Slots overfilled (more jobs running than the concurrency): wait, never spin.
    expect(mustWait(-1, 0)).toBe(true);
  });

  it("lets another worker take over an expired lease, and fences the first one out", async () => {
    const { jobId } = await t.db.transaction((tx) =>
      enqueue(tx, { workspaceId, kind: "lease_probe", payload: {} }),
    );
    const [first] = await claimJobs(t.db, {
      owner: "worker-a",
      kinds: ["lease_probe"],
      leaseSeconds: 0.2,
      limit: 1,
    });
    expect(first?.id).toBe(jobId);
    expect(
      await claimJobs(t.db, { owner: "worker-b", kinds: ["lease_probe"], leaseSeconds: 30, limit: 1 }),
    ).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const [taken] = await claimJobs(t.db, {
      owner: "worker-b",
      kinds: ["lease_probe"],
      leaseSeconds: 30,
      limit: 1,
    });
    expect(taken).toMatchObject({ id: jobId, lease_owner: "worker-b", attempts: 2 });
    await expect(t.db.transaction((tx) => fence(tx, first as never, "worker-a"))).rejects.toBeInstanceOf(
      LeaseLostError,
    );
  });

  it("marks a job dead after its attempts, shows it, and retries it on request", async () => {
    const { jobId } = await t.db.transaction((tx) =>
      enqueue(tx, { workspaceId, kind: "always_fails", payload: {} }),
    );
    await t.db.query("UPDATE jobs SET max_attempts = 1 WHERE id = $1", [jobId]);
    const worker = new Worker({
      db: t.db,
      log: silent,
      pollMs: 20,
      handlers: {
        always_fails: async () => {
          throw new Error("provider exploded");
        },
      },
    });
    await worker.start();
    try {
      const job = await waitFor(async () => {
        const res = (await t.app.inject({ url: `/jobs/${jobId}`, headers })).json();
        return res.state === "dead" ? res : undefined;
      });
      expect(job).toMatchObject({
        id: jobId,
        kind: "always_fails",
        attempts: 1,
        last_error: "provider exploded",
        lease: null,
      });
    } finally {
      await worker.stop();
    }
    const retried = await t.app.inject({ method: "POST", url: `/jobs/${jobId}/retry`, headers });
    expect(retried.statusCode).toBe(200);
    expect(retried.json()).toMatchObject({ state: "queued", attempts: 0 });
    const again = await t.app.inject({ method: "POST", url: `/jobs/${jobId}/retry`, headers });
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe("job_not_retryable");
  });

  it("hides another workspace's jobs", async () => {
    const { jobId } = await t.db.transaction((tx) =>
      enqueue(tx, { workspaceId, kind: "probe2", payload: {} }),
    );
    const other = await t.workspace("worker-other");
    expect((await t.app.inject({ url: `/jobs/${jobId}`, headers: other.headers })).statusCode).toBe(404);
    expect((await t.app.inject({ url: "/jobs/nope", headers })).statusCode).toBe(404);
  });
});
