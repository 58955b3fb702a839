// A write whose seq was already taken (on Citus: a writer caught in a shard's switch-over reads
// the counter where it was moved from) is refused by the (workspace_id, seq) key with nothing
// written, and answered 503 database_busy with Retry-After, which a client retries: never a 500.
// The stale counter is simulated by moving the counter back.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.js";

describe("a write that meets a seq already taken", () => {
  let t: TestApp;
  let ws: Awaited<ReturnType<TestApp["workspace"]>>;
  const note = (text: string) => ({ collection: "customer_events", entity: "acme", type: "note", text });
  const count = async () =>
    (
      await t.db.query<{ n: number }>("SELECT count(*)::int AS n FROM records WHERE workspace_id = $1", [
        ws.id,
      ])
    ).rows[0]?.n;

  beforeAll(async () => {
    t = await createTestApp();
    ws = await t.workspace("seq-conflict");
    await t.publishExample(ws.headers);
    await t.writeRecords(ws.headers, [note("first")]);
  });
  afterAll(() => t.close());

  it("answers 503 database_busy with Retry-After, writes nothing, and the retry lands once", async () => {
    const before = await count();
    await t.db.query("UPDATE workspace_counters SET last_seq = last_seq - 1 WHERE workspace_id = $1", [
      ws.id,
    ]);
    const payload = { records: [{ ...note("second"), dedupe_key: "second" }] };
    const refused = await t.app.inject({ method: "POST", url: "/records", headers: ws.headers, payload });
    expect(refused.statusCode, refused.body).toBe(503);
    expect(refused.headers["retry-after"]).toBe("1");
    expect(refused.json()).toMatchObject({ code: "database_busy", status: 503 });
    expect(await count()).toBe(before);

    await t.db.query("UPDATE workspace_counters SET last_seq = last_seq + 1 WHERE workspace_id = $1", [
      ws.id,
    ]);
    const retried = await t.app.inject({ method: "POST", url: "/records", headers: ws.headers, payload });
    expect(retried.statusCode, retried.body).toBe(200);
    expect(retried.json().inserted).toHaveLength(1);
    expect(await count()).toBe((before ?? 0) + 1);
  });
});
