// Keys over HTTP (docs/api.md "Keys over HTTP"): a workspace's admin key lists, creates and
// revokes its keys while the server runs; no other scope may, and no key reaches another
// workspace's keys.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertKey, listKeys, revokeKey } from "../../src/workspaces/index.js";
import { createTestApp, type TestApp } from "../support/app.js";

type Headers = { authorization: string };
const bearer = (key: string): Headers => ({ authorization: `Bearer ${key}` });

describe("keys over HTTP", () => {
  let t: TestApp;
  let a: { id: string; key: string; headers: Headers };
  let b: { id: string; key: string; headers: Headers };
  beforeAll(async () => {
    t = await createTestApp();
    a = await t.workspace("keys-a");
    b = await t.workspace("keys-b");
  });
  afterAll(() => t.close());

  const call = (headers: Headers, method: "GET" | "POST" | "DELETE", url: string, payload?: object) =>
    t.app.inject({ method, url, headers, payload });
  const create = async (headers: Headers, body: object) => {
    const res = await call(headers, "POST", "/keys", body);
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  };

  it("gives a workspace's first key scope admin, and lists keys with prefixes, never a key", async () => {
    const me = (await call(a.headers, "GET", "/workspace")).json().key;
    expect(me.scope).toBe("admin");
    const res = await call(a.headers, "GET", "/keys");
    expect(res.statusCode).toBe(200);
    const [first] = res.json().keys;
    expect(first).toEqual({
      id: me.id,
      name: "default",
      scope: "admin",
      prefix: a.key.slice(0, 12),
      created_at: expect.any(String),
      // Noted off the request's path, at most once a minute: GET /workspace above may have.
      last_used_at: first.last_used_at,
      expires_at: null,
      revoked_at: null,
    });
    expect(first.prefix).toMatch(/^egk_[A-Za-z0-9_-]{8}$/);
    expect(res.body).not.toContain(a.key);
    expect(res.body).not.toContain(a.key.slice(12));
  });

  it("creates a read_only key that reads, is refused writes, and is listed with its expiry", async () => {
    const before = Date.now();
    const created = await create(a.headers, { name: "support-bot", scope: "read_only", expires_in: "30d" });
    expect(created).toEqual({
      id: expect.any(String),
      name: "support-bot",
      scope: "read_only",
      prefix: created.api_key.slice(0, 12),
      api_key: expect.stringMatching(/^egk_[A-Za-z0-9_-]{43}$/),
      expires_at: expect.any(String),
    });
    const expiry = Date.parse(created.expires_at) - before;
    expect(expiry).toBeGreaterThanOrEqual(30 * 86_400_000 - 1000);
    expect(expiry).toBeLessThanOrEqual(30 * 86_400_000 + 60_000);
    const reader = bearer(created.api_key);
    expect((await call(reader, "GET", "/workspace")).json().key.scope).toBe("read_only");
    const write = await call(reader, "POST", "/records", { records: [] });
    expect(write.statusCode).toBe(403);
    expect(write.json().code).toBe("key_read_only");
    const listed = (await call(a.headers, "GET", "/keys")).json().keys;
    expect(listed.map((key: { id: string }) => key.id)).toContain(created.id);
    expect(JSON.stringify(listed)).not.toContain(created.api_key);
  });

  it("refuses /keys to read_write and read_only keys with 403 key_scope, changing nothing", async () => {
    const writer = await create(a.headers, { name: "writer", scope: "read_write" });
    const reader = await create(a.headers, { name: "reader", scope: "read_only" });
    const count = async () => (await listKeys(t.db, a.id)).length;
    const keysBefore = await count();
    for (const key of [writer.api_key, reader.api_key]) {
      const headers = bearer(key);
      for (const [method, url, payload] of [
        ["GET", "/keys", undefined],
        ["POST", "/keys", { name: "sneaky", scope: "read_write" }],
        ["DELETE", `/keys/${writer.id}`, undefined],
      ] as const) {
        const res = await call(headers, method, url, payload);
        expect(res.statusCode, `${method} ${url}`).toBe(403);
        expect(res.json().code).toBe("key_scope");
        expect(res.headers["content-type"]).toContain("application/problem+json");
      }
    }
    expect(await count()).toBe(keysBefore);
    // The writer still works: nothing was revoked.
    expect((await call(bearer(writer.api_key), "GET", "/workspace")).statusCode).toBe(200);
  });

  it("refuses bad bodies with 422: an admin scope, an unknown scope, a bad duration, a hidden character", async () => {
    const keysBefore = (await listKeys(t.db, a.id)).length;
    for (const body of [
      { name: "root", scope: "admin" },
      { name: "x", scope: "owner" },
      { name: "x" },
      { scope: "read_only" },
      { name: "x", scope: "read_only", expires_in: "forever" },
      { name: "x", scope: "read_only", expires_in: "0d" },
      { name: "x", scope: "read_only", expires_in: "4000d" },
      { name: "bad\u202Ename", scope: "read_only" },
      { name: "   ", scope: "read_only" },
      { name: "x", scope: "read_only", extra: 1 },
    ]) {
      const res = await call(a.headers, "POST", "/keys", body);
      expect(res.statusCode, JSON.stringify(body)).toBe(422);
      expect(res.json().code).toBe("request_schema");
    }
    expect((await listKeys(t.db, a.id)).length).toBe(keysBefore);
    // An enum's refusal lists what it allows.
    const owner = (await call(a.headers, "POST", "/keys", { name: "x", scope: "owner" })).json();
    expect(owner.errors).toContainEqual({
      path: "scope",
      message: 'must be one of "read_write", "read_only"',
    });
  });

  it("revokes a key: 204, its next request is 401, listed with revoked_at; a second revoke is 204 too", async () => {
    const doomed = await create(a.headers, { name: "doomed", scope: "read_write" });
    expect((await call(bearer(doomed.api_key), "GET", "/workspace")).statusCode).toBe(200);
    const res = await call(a.headers, "DELETE", `/keys/${doomed.id}`);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe("");
    expect((await call(bearer(doomed.api_key), "GET", "/workspace")).statusCode).toBe(401);
    const listed = (await call(a.headers, "GET", "/keys"))
      .json()
      .keys.find((k: { id: string }) => k.id === doomed.id);
    expect(listed.revoked_at).toEqual(expect.any(String));
    const again = await call(a.headers, "DELETE", `/keys/${doomed.id}`);
    expect(again.statusCode).toBe(204);
    const relisted = (await call(a.headers, "GET", "/keys"))
      .json()
      .keys.find((k: { id: string }) => k.id === doomed.id);
    expect(relisted.revoked_at).toBe(listed.revoked_at);
  });

  it("never reaches another workspace's keys: B's key ids are 404 to A, lists hold only their own", async () => {
    const bKey = await create(b.headers, { name: "b-reader", scope: "read_only" });
    for (const id of [bKey.id, b.id, "00000000-0000-4000-8000-000000000000", "not-a-uuid"]) {
      const res = await call(a.headers, "DELETE", `/keys/${id}`);
      expect(res.statusCode, id).toBe(404);
      expect(res.json().code).toBe("not_found");
    }
    expect((await call(bearer(bKey.api_key), "GET", "/workspace")).statusCode).toBe(200);
    const aIds = (await call(a.headers, "GET", "/keys")).json().keys.map((k: { id: string }) => k.id);
    const bIds = (await call(b.headers, "GET", "/keys")).json().keys.map((k: { id: string }) => k.id);
    expect(aIds.filter((id: string) => bIds.includes(id))).toEqual([]);
    expect(bIds).toContain(bKey.id);
    expect(aIds).not.toContain(bKey.id);
    // Named by the key itself (engram key revoke takes what leaked), B's key is not found in A
    // either, and the refusal does not repeat it.
    const byKey = revokeKey(t.db, { id: a.id, name: "keys-a" }, bKey.api_key);
    await expect(byKey).rejects.toThrow(/has no such key/);
    await expect(byKey).rejects.not.toThrow(bKey.api_key);
    expect((await call(bearer(bKey.api_key), "GET", "/workspace")).statusCode).toBe(200);
    // A key A creates belongs to A, whatever the body says.
    const made = await create(a.headers, { name: "mine", scope: "read_write" });
    expect((await call(bearer(made.api_key), "GET", "/workspace")).json().id).toBe(a.id);
  });

  it("revokes by id only: a key in the URL is 404, not repeated, and keeps working", async () => {
    const own = await create(a.headers, { name: "in-a-url", scope: "read_only" });
    const res = await call(a.headers, "DELETE", `/keys/${own.api_key}`);
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe("not_found");
    expect(res.body).not.toContain(own.api_key);
    expect((await call(bearer(own.api_key), "GET", "/workspace")).statusCode).toBe(200);
    const listed = (await call(a.headers, "GET", "/keys"))
      .json()
      .keys.find((k: { id: string }) => k.id === own.id);
    expect(listed.revoked_at).toBeNull();
  });

  it("lets a second admin key (made by the operator) manage keys, and answers 401 without a key", async () => {
    const ws = { id: a.id, name: "keys-a" };
    const second = await insertKey(t.db, ws, { name: "ops", scope: "admin" });
    expect((await call(bearer(second.api_key), "GET", "/keys")).statusCode).toBe(200);
    expect((await t.app.inject({ method: "GET", url: "/keys" })).statusCode).toBe(401);
    expect((await t.app.inject({ method: "DELETE", url: `/keys/${second.id}` })).statusCode).toBe(401);
  });
});
