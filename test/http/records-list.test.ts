// GET /records (docs/api.md "GET /records"): the workspace's records across entities, newest
// first, rows shaped like timeline rows with their entity; filters by collection, type, status
// and creation time; an opaque cursor pages; another workspace's rows and _system audit rows
// never show unless _system is asked for by name; bad parameters are 422 naming them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertKey } from "../../src/workspaces/index.js";
import { createTestApp, type TestApp } from "../support/app.js";
import { TIMELINE_ROW } from "../support/row-fields.js";

describe("GET /records", () => {
  let t: TestApp;
  let a: Awaited<ReturnType<TestApp["workspace"]>>;
  let b: Awaited<ReturnType<TestApp["workspace"]>>;
  /** A's record ids in write order. */
  const ids: string[] = [];

  const list = async (query = "", headers = a.headers) => {
    const res = await t.app.inject({ url: `/records${query}`, headers });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { records: Record<string, unknown>[]; next_before: string | null };
  };
  const refused = async (query: string) => {
    const res = await t.app.inject({ url: `/records${query}`, headers: a.headers });
    expect(res.statusCode, res.body).toBe(422);
    return res.json().errors.map((e: { path: string }) => e.path);
  };

  beforeAll(async () => {
    t = await createTestApp();
    a = await t.workspace("curated");
    b = await t.workspace("other");
    for (const ws of [a, b]) await t.publishExample(ws.headers);
    await t.writeRecords(b.headers, [
      { collection: "customer_events", entity: "acme", type: "ticket", text: "B's" },
    ]);
    const rows = [
      { collection: "customer_events", entity: "acme", type: "ticket", text: "Card declined" },
      { collection: "customer_facts", entity: "acme", type: "fact", key: "plan", text: "Pro plan" },
      { collection: "customer_events", entity: "globex", type: "call", text: "Asked for a refund" },
      {
        collection: "customer_facts",
        entity: "globex",
        type: "fact",
        key: "plan",
        text: "Free",
        status: "draft",
      },
      { collection: "customer_facts", entity: "acme", type: "fact", key: "plan", tombstone: true },
    ];
    // One write per row: each gets its own created_at, in order.
    for (const row of rows) ids.push(...(await t.writeRecords(a.headers, [row])));
  });
  afterAll(() => t.close());

  it("lists every record of the workspace newest first, each with its entity, nothing of another workspace", async () => {
    const { records, next_before } = await list();
    expect(records.map((r) => r.id)).toEqual([...ids].reverse());
    expect(next_before).toBeNull();
    expect(records[4]).toMatchObject({
      entity: "acme",
      collection: "customer_events",
      key: null,
      type: "ticket",
      status: "active",
      tombstone: false,
      text: "Card declined",
    });
    expect(Object.keys(records[4] as object).sort()).toEqual([...TIMELINE_ROW, "entity"].sort());
    expect(records[0]).toMatchObject({ key: "plan", tombstone: true });
    const seqs = records.map((r) => r.seq as number);
    expect([...seqs].sort((x, y) => y - x)).toEqual(seqs);
  });

  it("filters by collection, type and status", async () => {
    const ofList = async (query: string) => (await list(query)).records.map((r) => r.id);
    expect(await ofList("?collection=customer_events")).toEqual([ids[2], ids[0]]);
    expect(await ofList("?type=fact")).toEqual([ids[4], ids[3], ids[1]]);
    expect(await ofList("?status=draft")).toEqual([ids[3]]);
    expect(await ofList("?status=active&collection=customer_facts")).toEqual([ids[4], ids[1]]);
    expect(await ofList("?collection=customer_events&type=fact")).toEqual([]);
  });

  it("filters by creation time, both bounds exclusive", async () => {
    const { records } = await list();
    const at = (id: string | undefined) => records.find((r) => r.id === id)?.created_at as string;
    const after = (await list(`?created_after=${encodeURIComponent(at(ids[1]))}`)).records.map((r) => r.id);
    expect(after).toEqual([ids[4], ids[3], ids[2]]);
    const before = (await list(`?created_before=${encodeURIComponent(at(ids[3]))}`)).records.map((r) => r.id);
    expect(before).toEqual([ids[2], ids[1], ids[0]]);
    const between = await list(
      `?created_after=${encodeURIComponent(at(ids[0]))}&created_before=${encodeURIComponent(at(ids[2]))}`,
    );
    expect(between.records.map((r) => r.id)).toEqual([ids[1]]);
  });

  it("pages with the opaque next_before until it is null", async () => {
    const seen: unknown[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await list(`?limit=2${cursor ? `&before=${encodeURIComponent(cursor)}` : ""}`);
      expect(page.records.length).toBeLessThanOrEqual(2);
      seen.push(...page.records.map((r) => r.id));
      cursor = page.next_before;
      if (cursor !== null) expect(cursor).not.toMatch(/^\d+$/);
      pages++;
    } while (cursor !== null);
    expect(pages).toBe(3);
    expect(seen).toEqual([...ids].reverse());
    // A filter pages alike.
    const first = await list("?type=fact&limit=1");
    const second = await list(`?type=fact&limit=1&before=${encodeURIComponent(first.next_before as string)}`);
    expect(second.records.map((r) => r.id)).toEqual([ids[3]]);
  });

  it("leaves out _system audit rows unless asked for by name", async () => {
    const erased = await t.app.inject({
      method: "POST",
      url: "/erase",
      headers: a.headers,
      payload: { entity: "globex" },
    });
    expect(erased.statusCode, erased.body).toBe(200);
    const { records } = await list();
    expect(records.map((r) => r.entity)).not.toContain("globex");
    expect(records.every((r) => r.collection !== "_system")).toBe(true);
    const system = await list("?collection=_system");
    expect(system.records.length).toBeGreaterThan(0);
    expect(system.records.every((r) => r.collection === "_system")).toBe(true);
  });

  it("answers a read-only key; another workspace's key sees only its own", async () => {
    const key = await insertKey(t.db, { id: a.id, name: "curated" }, { scope: "read_only" });
    const readOnly = await list("", { authorization: `Bearer ${key.api_key}` });
    expect(readOnly.records.length).toBeGreaterThan(0);
    const other = await list("", b.headers);
    expect(other.records.map((r) => r.text)).toEqual(["B's"]);
  });

  it("refuses bad parameters with 422 naming them", async () => {
    expect(await refused("?before=42")).toEqual(["querystring.before"]);
    expect(await refused("?before=r1.bm90LWEtc2Vx")).toEqual(["querystring.before"]);
    expect(await refused("?created_after=yesterday")).toEqual(["querystring.created_after"]);
    expect(await refused("?created_before=2026-11-20T09:30:00")).toEqual(["querystring.created_before"]);
    for (const query of ["?limit=0", "?limit=101", "?status=deleted", "?entity=acme", "?type="]) {
      const res = await t.app.inject({ url: `/records${query}`, headers: a.headers });
      expect(res.statusCode, query).toBe(422);
      expect(res.json().code).toBe("request_schema");
    }
    expect((await list()).records.length).toBeLessThanOrEqual(50);
  });
});
