import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.js";
import { waitFor } from "../support/wait.js";
import { startTestWorker } from "../support/worker.js";

describe("POST /reindex", () => {
  let t: TestApp;
  let headers: { authorization: string };
  let workspaceId: string;
  const reindex = (payload: object, app = t.app) =>
    app.inject({ method: "POST", url: "/reindex", headers, payload });
  const openReindexJobs = async () => {
    const { rows } = await t.db.query<{ id: string }>(
      "SELECT id FROM jobs WHERE workspace_id = $1 AND kind = 'reindex' AND state IN ('queued', 'running')",
      [workspaceId],
    );
    return rows.map((row) => row.id);
  };
  /** Runs a worker until the workspace's reindex jobs have all ended. */
  const drain = async () => {
    const worker = await startTestWorker(t.db);
    try {
      await waitFor(async () => (await openReindexJobs()).length === 0);
    } finally {
      await worker.stop();
    }
  };

  beforeAll(async () => {
    t = await createTestApp();
    const ws = await t.workspace("reindex");
    headers = ws.headers;
    workspaceId = ws.id;
    await t.publishExample(headers);
    const records = Array.from({ length: 4 }, (_, i) => ({
      collection: "learning_signals",
      entity: "e",
      type: "note",
      text: `note ${i} refund`,
    }));
    await t.app.inject({ method: "POST", url: "/records", headers, payload: { records } });
  });
  afterAll(() => t.close());

  it.each([
    ["neither", {}],
    ["both", { since_seq: 0, reset: true }],
    ["reset false alone", { reset: false }],
  ])("refuses %s with 422 reindex_request", async (_name, body) => {
    const res = await reindex(body);
    expect(res.statusCode).toBe(422);
    expect(res.json().code).toBe("reindex_request");
  });

  it("needs confirm for reset outside a test database", async () => {
    const production = await createTestApp({ env: { TEST_DATABASE: "false" }, testDb: t.testDb });
    try {
      const res = await reindex({ reset: true }, production.app);
      expect(res.statusCode).toBe(422);
      expect(res.json().code).toBe("reindex_request");
      expect((await reindex({ reset: true, confirm: true }, production.app)).statusCode).toBe(200);
    } finally {
      await production.app.close();
    }
    await drain();
  });

  it("rebuilds the full-text projection without rewriting records, and audits it", async () => {
    await t.db.query(
      "UPDATE records SET search_text = NULL WHERE workspace_id = $1 AND collection = 'learning_signals'",
      [workspaceId],
    );
    const before = (await t.app.inject({ url: "/timeline?entity=e", headers })).json().records;
    const res = await reindex({ since_seq: 0 });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ mode: "since_seq", target_count: 4, enqueued_jobs: 1 });
    const worker = await startTestWorker(t.db);
    try {
      await waitFor(async () => {
        const { rows } = await t.db.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM records WHERE workspace_id = $1 AND collection = 'learning_signals' AND search_text @@ to_tsquery('english', 'refund')",
          [workspaceId],
        );
        return rows[0]?.n === 4 && (await openReindexJobs()).length === 0;
      });
    } finally {
      await worker.stop();
    }
    expect((await t.app.inject({ url: "/timeline?entity=e", headers })).json().records).toEqual(before);
    const audit = (
      await t.app.inject({ url: "/timeline?include_system=true&collections=_system", headers })
    ).json().records;
    expect(audit.some((r: any) => r.type === "reindex_audit")).toBe(true);
  });

  it("counts only records after since_seq", async () => {
    const last = (await t.app.inject({ url: "/timeline?entity=e&limit=1", headers })).json().records[0].seq;
    const res = await reindex({ since_seq: last - 1 });
    expect(res.json()).toMatchObject({ target_count: 1, enqueued_jobs: 1 });
  });

  it("reindexes one request at a time: another while jobs are open is 409 reindex_running, nothing queued", async () => {
    const open = await openReindexJobs();
    expect(open).toHaveLength(1);
    for (const body of [{ reset: true }, { since_seq: 0 }]) {
      const res = await reindex(body);
      expect(res.statusCode).toBe(409);
      expect(res.json()).toMatchObject({ code: "reindex_running", job_id: open[0] });
    }
    expect(await openReindexJobs()).toEqual(open);
    await drain();
    expect((await reindex({ since_seq: 0 })).statusCode).toBe(200);
  });
});
