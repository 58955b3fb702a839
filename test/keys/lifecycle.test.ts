// Keys over their life: several at once (rotation without downtime), revocation that holds from
// the next request, expiry on the server's clock, last use noted at most once a minute, and no
// key ever reaching another workspace.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { AppError } from "../../src/platform/errors.js";
import { insertKey, listKeys, revokeKey } from "../../src/workspaces/index.js";
import { createTestApp, type TestApp } from "../support/app.js";
import { createTestDb } from "../support/db.js";
import { recordingDb } from "../support/recording-db.js";
import { waitFor } from "../support/wait.js";

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

describe("workspace keys", () => {
  let t: TestApp;
  const statements: string[] = [];
  let ws: { id: string; name: string; headers: { authorization: string } };

  beforeAll(async () => {
    const testDb = await createTestDb();
    t = await createTestApp({ testDb: { ...testDb, db: recordingDb(testDb.db, statements) } });
    const created = await t.workspace("keys");
    ws = { id: created.id, name: "keys", headers: created.headers };
    await t.publishExample(ws.headers);
  });
  afterAll(() => t.close());
  afterEach(() => {
    vi.useRealTimers();
  });

  const status = async (headers: { authorization: string }, url = "/timeline?entity=nobody") =>
    (await t.app.inject({ url, headers })).statusCode;

  it("rotates without downtime: both keys work until the old one is revoked", async () => {
    const old = await insertKey(t.db, ws, { name: "old" });
    const fresh = await insertKey(t.db, ws, { name: "new" });
    expect(await status(bearer(old.api_key))).toBe(200);
    expect(await status(bearer(fresh.api_key))).toBe(200);
    await revokeKey(t.db, ws, old.id);
    const refused = await t.app.inject({ url: "/timeline?entity=nobody", headers: bearer(old.api_key) });
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toMatchObject({ code: "unauthorized" });
    expect(await status(bearer(fresh.api_key))).toBe(200);
    const listed = await listKeys(t.db, ws.id);
    expect(listed.find((key) => key.id === old.id)?.revoked_at).toBeInstanceOf(Date);
    expect(listed.find((key) => key.id === fresh.id)?.revoked_at).toBeNull();
  });

  it("refuses every request sent after the revocation, while others are in flight", async () => {
    const key = await insertKey(t.db, ws, { name: "in-flight" });
    const url = await t.app.listen({ port: 0, host: "127.0.0.1" });
    let revokedAt = Number.POSITIVE_INFINITY;
    const outcomes: { sentAt: number; status: number }[] = [];
    let stop = false;
    const client = async () => {
      while (!stop) {
        const sentAt = performance.now();
        const res = await fetch(`${url}/timeline?entity=nobody`, { headers: bearer(key.api_key) });
        await res.arrayBuffer();
        outcomes.push({ sentAt, status: res.status });
      }
    };
    const clients = [client(), client(), client(), client()];
    await waitFor(async () => outcomes.filter((o) => o.status === 200).length >= 8);
    await revokeKey(t.db, ws, key.id);
    revokedAt = performance.now();
    await waitFor(async () => outcomes.filter((o) => o.sentAt > revokedAt).length >= 8);
    stop = true;
    await Promise.all(clients);
    expect(new Set(outcomes.map((o) => o.status))).toEqual(new Set([200, 401]));
    expect(outcomes.filter((o) => o.sentAt > revokedAt && o.status !== 401)).toEqual([]);
  });

  it("expires on the server's clock", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const start = new Date("2031-01-01T00:00:00Z").getTime();
    vi.setSystemTime(start);
    const key = await insertKey(t.db, ws, { name: "hour", expiresInMs: 3_600_000 });
    expect(key.expires_at?.toISOString()).toBe("2031-01-01T01:00:00.000Z");
    vi.setSystemTime(start + 3_600_000 - 1);
    expect(await status(bearer(key.api_key))).toBe(200);
    vi.setSystemTime(start + 3_600_000);
    expect(await status(bearer(key.api_key))).toBe(401);
  });

  it("notes a key's use at most once a minute, off the request's path", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const start = Date.parse("2031-06-01T00:00:00Z");
    vi.setSystemTime(start);
    const key = await insertKey(t.db, ws, { name: "busy" });
    const touches = () => statements.filter((sql) => sql.includes("SET last_used_at")).length;
    const before = touches();
    for (let i = 0; i < 20; i++) expect(await status(bearer(key.api_key))).toBe(200);
    expect(touches() - before).toBe(1);
    const used = await waitFor(
      async () => (await listKeys(t.db, ws.id)).find((k) => k.id === key.id)?.last_used_at,
    );
    expect(used).toBeInstanceOf(Date);
    vi.setSystemTime(start + 59_000);
    for (let i = 0; i < 5; i++) await status(bearer(key.api_key));
    expect(touches() - before).toBe(1);
    vi.setSystemTime(start + 61_000);
    for (let i = 0; i < 5; i++) await status(bearer(key.api_key));
    expect(touches() - before).toBe(2);
  });

  it("never lets one workspace's key reach another", async () => {
    const other = await t.workspace("keys-other");
    await t.publishExample(other.headers);
    const [mine] = await t.writeRecords(ws.headers, [
      { collection: "customer_events", entity: "shared-name", type: "note", text: "only in keys" },
    ]);
    const extra = await insertKey(t.db, { id: other.id, name: "keys-other" }, { name: "second" });
    // Each of the other workspace's keys sees its own (empty) timeline and not this record.
    for (const key of [other.key, extra.api_key]) {
      const res = await t.app.inject({ url: "/timeline?entity=shared-name", headers: bearer(key) });
      expect(res.json().records).toEqual([]);
      expect((await t.app.inject({ url: `/records/${mine}`, headers: bearer(key) })).statusCode).toBe(404);
    }
    // Keys are managed only through their own workspace.
    await expect(revokeKey(t.db, ws, extra.id)).rejects.toMatchObject({ code: "not_found" });
    await expect(revokeKey(t.db, ws, "not-a-uuid")).rejects.toBeInstanceOf(AppError);
    expect((await listKeys(t.db, ws.id)).map((k) => k.id)).not.toContain(extra.id);
    expect(await status(bearer(extra.api_key), "/timeline?entity=shared-name")).toBe(200);
  });
});
