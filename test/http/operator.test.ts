// The operator API (docs/api.md "Operator API"): with ADMIN_TOKEN, workspaces are created, listed
// and deleted while the server runs; without it every /admin route is a plain 404; a wrong token
// or a workspace key is 401. A deleted workspace leaves no row anywhere in the database.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.js";
import { createTestDb } from "../support/db.js";
import { dumpDatabase, expectNoTraces, tracesOf } from "../support/dump.js";
import { enrichAll } from "../support/worker.js";

const ADMIN_TOKEN = `adm-${randomBytes(16).toString("hex")}`;
const operator = { authorization: `Bearer ${ADMIN_TOKEN}` };
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
/** A customer's plan (customer_facts, key plan): two of them make a keyed slot with history. */
const plan = (entity: string, tier: string, text: string) => ({
  collection: "customer_facts",
  entity,
  type: "plan",
  key: "plan",
  text,
  content: { value: tier, tier },
});

describe("the operator API without ADMIN_TOKEN", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it("answers every /admin route with a plain 404, whatever is sent, and creates nothing", async () => {
    const ws = await t.workspace("no-operator");
    for (const headers of [{}, operator, ws.headers]) {
      // The routes as documented, and methods they do not take (a 405 would name the real ones).
      for (const [method, url] of [
        ["POST", "/admin/workspaces"],
        ["GET", "/admin/workspaces"],
        ["DELETE", `/admin/workspaces/${ws.id}`],
        ["PUT", "/admin/workspaces"],
        ["PATCH", `/admin/workspaces/${ws.id}`],
      ] as const) {
        const res = await t.app.inject({
          method,
          url,
          headers,
          payload: method === "POST" ? { name: "x" } : undefined,
        });
        expect([method, url, res.statusCode]).toEqual([method, url, 404]);
        expect(res.json()).toMatchObject({ code: "not_found", detail: `no route ${method} ${url}` });
        expect(res.headers.allow).toBeUndefined();
      }
    }
    expect((await t.app.inject({ url: "/workspace", headers: ws.headers })).statusCode).toBe(200);
  });
});

describe("the operator API with ADMIN_TOKEN", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { ADMIN_TOKEN } });
  });
  afterAll(() => t.close());

  const admin = (method: "GET" | "POST" | "DELETE", url: string, payload?: object, headers = operator) =>
    t.app.inject({ method, url, headers, payload });
  const create = async (name: string) => {
    const res = await admin("POST", "/admin/workspaces", { name });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { id: string; name: string; created_at: string; api_key: string };
  };

  it("refuses a missing or wrong token, and a workspace key, with 401", async () => {
    const ws = await create("op-key-holder");
    for (const headers of [
      {},
      bearer(`${ADMIN_TOKEN}x`),
      bearer(ws.api_key),
      { authorization: ADMIN_TOKEN },
    ]) {
      for (const [method, url] of [
        ["POST", "/admin/workspaces"],
        ["GET", "/admin/workspaces"],
        ["DELETE", `/admin/workspaces/${ws.id}`],
      ] as const) {
        const res = await admin(method, url, { name: "intruder" }, headers as { authorization: string });
        expect([method, url, res.statusCode]).toEqual([method, url, 401]);
        expect(res.json().code).toBe("unauthorized");
      }
    }
    const names = (await admin("GET", "/admin/workspaces?limit=100"))
      .json()
      .workspaces.map((w: { name: string }) => w.name);
    expect(names).not.toContain("intruder");
    expect((await t.app.inject({ url: "/workspace", headers: bearer(ws.api_key) })).statusCode).toBe(200);
  });

  it("creates a workspace whose default key, shown once, is admin and works at once", async () => {
    const created = await create("op-acme");
    expect(created).toEqual({
      id: expect.any(String),
      name: "op-acme",
      created_at: expect.any(String),
      api_key: expect.stringMatching(/^egk_[A-Za-z0-9_-]{43}$/),
    });
    const me = (await t.app.inject({ url: "/workspace", headers: bearer(created.api_key) })).json();
    expect(me).toMatchObject({ id: created.id, name: "op-acme", key: { name: "default", scope: "admin" } });
    const taken = await admin("POST", "/admin/workspaces", { name: "op-acme" });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().code).toBe("workspace_exists");
    for (const name of ["", "-dash", "has space", "x".repeat(65), 7]) {
      const res = await admin("POST", "/admin/workspaces", { name });
      expect([name, res.statusCode]).toEqual([name, 422]);
      expect(res.json().code).toBe("request_schema");
    }
    expect((await admin("POST", "/admin/workspaces", { name: "ok", extra: 1 })).statusCode).toBe(422);
  });

  it("lists workspaces in name order, in pages, never a key", async () => {
    for (const name of ["op-page-a", "op-page-b", "op-page-c"]) await create(name);
    const seen: string[] = [];
    let after: string | null = null;
    do {
      const query: string = after === null ? "" : `&after=${encodeURIComponent(after)}`;
      const res = await admin("GET", `/admin/workspaces?limit=2${query}`);
      expect(res.statusCode).toBe(200);
      const page = res.json();
      expect(page.workspaces.length).toBeLessThanOrEqual(2);
      for (const w of page.workspaces) expect(Object.keys(w).sort()).toEqual(["created_at", "id", "name"]);
      expect(res.body).not.toContain("egk_");
      seen.push(...page.workspaces.map((w: { name: string }) => w.name));
      after = page.next_after;
    } while (after !== null);
    expect(seen).toEqual([...seen].sort());
    expect(seen).toEqual(expect.arrayContaining(["op-page-a", "op-page-b", "op-page-c"]));
    expect(new Set(seen).size).toBe(seen.length);
    for (const query of ["limit=0", "limit=101", "after=", "other=1"]) {
      expect((await admin("GET", `/admin/workspaces?${query}`)).statusCode, query).toBe(422);
    }
  });

  it("deletes a workspace: 204, its keys are 401 at once, a second delete and unknown ids are 404", async () => {
    const doomed = await create("op-doomed");
    const keep = await create("op-keep");
    expect((await admin("DELETE", `/admin/workspaces/${doomed.id}`)).statusCode).toBe(204);
    expect((await t.app.inject({ url: "/workspace", headers: bearer(doomed.api_key) })).statusCode).toBe(401);
    expect((await t.app.inject({ url: "/workspace", headers: bearer(keep.api_key) })).statusCode).toBe(200);
    for (const id of [doomed.id, "00000000-0000-4000-8000-000000000000", "nope"]) {
      const res = await admin("DELETE", `/admin/workspaces/${id}`);
      expect([id, res.statusCode]).toEqual([id, 404]);
      expect(res.json().code).toBe("not_found");
    }
    const names = (await admin("GET", "/admin/workspaces?limit=100"))
      .json()
      .workspaces.map((w: { name: string }) => w.name);
    expect(names).not.toContain("op-doomed");
    expect(names).toContain("op-keep");
  });
});

describe("deleting a workspace leaves no trace", () => {
  let t: TestApp;
  beforeAll(async () => {
    // A database of its own: the dump reads every row of it.
    t = await createTestApp({ env: { ADMIN_TOKEN }, testDb: await createTestDb() });
  });
  afterAll(() => t.close());

  it("removes every row of the workspace from every table; the other workspace keeps all of its own", async () => {
    const marker = `gone-${randomBytes(6).toString("hex")}`;
    const kept = `kept-${randomBytes(6).toString("hex")}`;
    const fill = async (name: string, text: string) => {
      const res = await t.app.inject({
        method: "POST",
        url: "/admin/workspaces",
        headers: operator,
        payload: { name },
      });
      const ws = res.json() as { id: string; api_key: string };
      const headers = bearer(ws.api_key);
      await t.publishExample(headers);
      const ids = await t.writeRecords(headers, [
        {
          collection: "customer_events",
          entity: text,
          type: "ticket",
          text: `${text} asked for a refund`,
          content: { channel: "email", topic: "billing", priority: 4 },
        },
        plan(text, "pro", `${text} is on pro`),
        plan(text, "enterprise", `${text} moved to enterprise`),
      ]);
      await enrichAll(t.db, ws.id);
      const delta = (await t.app.inject({ url: `/delta?consumer=${text}`, headers })).json();
      const moved = await t.app.inject({
        method: "POST",
        url: "/cursor",
        headers,
        payload: { consumer: text, position: delta.next_cursor, scope_hash: delta.scope_hash },
      });
      expect(moved.statusCode, moved.body).toBe(200);
      const use = await t.app.inject({
        method: "POST",
        url: "/artifacts/support_brief/uses",
        headers,
        payload: { parameters: { customer: text, question: "refund" } },
      });
      expect(use.statusCode, use.body).toBe(200);
      const feedback = await t.app.inject({
        method: "POST",
        url: `/artifact-uses/${use.json().id}/feedback`,
        headers,
        payload: { kind: "thumbs_up", source: "end_user", comment: `${text} liked it` },
      });
      expect(feedback.statusCode, feedback.body).toBe(200);
      const key = await t.app.inject({
        method: "POST",
        url: "/keys",
        headers,
        payload: { name: "agent", scope: "read_only" },
      });
      expect(
        (await t.app.inject({ url: "/workspace", headers: bearer(key.json().api_key) })).statusCode,
      ).toBe(200);
      return { ...ws, ids };
    };
    const doomed = await fill("op-dump-doomed", marker);
    const keep = await fill("op-dump-keep", kept);
    const needles = [doomed.id, marker, ...doomed.ids];
    // The dump held the workspace before: the check below cannot pass vacuously.
    const before = tracesOf(await dumpDatabase(t.db), needles);
    expect(before.length).toBeGreaterThan(10);

    expect(
      (await t.app.inject({ method: "DELETE", url: `/admin/workspaces/${doomed.id}`, headers: operator }))
        .statusCode,
    ).toBe(204);
    await expectNoTraces(t.db, needles);
    // The other workspace is whole: its records, its keys, its catalog.
    const after = tracesOf(await dumpDatabase(t.db), [kept]).length;
    expect(after).toBeGreaterThan(0);
    const timeline = await t.app.inject({ url: `/timeline?entity=${kept}`, headers: bearer(keep.api_key) });
    expect(timeline.json().records).toHaveLength(3);
  });
});
