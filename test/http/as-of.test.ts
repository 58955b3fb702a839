// Reads as memory held them at a moment (docs/api.md "Memory over time"): as_of on GET /document,
// GET /timeline and in a SearchSpec counts only the records created at or before it; a slot's
// value then is its newest version by then (a tombstone retracts it); erased records stay gone;
// a bad as_of is 422.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.js";
import { waitFor } from "../support/wait.js";
import { enrichAll } from "../support/worker.js";

interface Written {
  id: string;
  created_at: string;
}

describe("as_of on GET /document, GET /timeline and searches", () => {
  let t: TestApp;
  let headers: { authorization: string };
  const get = async (url: string) => {
    const res = await t.app.inject({ url, headers });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  /** Writes one row in a millisecond of its own, so that each version has its own moment. */
  const write = async (row: object): Promise<Written> => {
    const [id] = await t.writeRecords(headers, [row]);
    const { created_at } = await get(`/records/${id}`);
    await waitFor(async () => Date.now() > Date.parse(created_at) + 1);
    return { id: id as string, created_at };
  };
  const plan = (tier: string, extra: object = {}) => ({
    collection: "customer_facts",
    entity: "acme",
    type: "plan",
    key: "plan",
    text: `On the ${tier} plan`,
    content: { value: tier, tier },
    ...extra,
  });
  let before: string;
  let free: Written;
  let note: Written;
  let pro: Written;
  let retracted: Written;

  beforeAll(async () => {
    t = await createTestApp();
    ({ headers } = await t.workspace("as-of"));
    await t.publishExample(headers);
    before = new Date(Date.now() - 60_000).toISOString();
    free = await write(plan("free"));
    note = await write({
      collection: "customer_events",
      entity: "acme",
      type: "ticket",
      text: "asked about upgrading",
      content: { channel: "email", topic: "plan", priority: 1 },
    });
    pro = await write(plan("pro"));
    retracted = await write(plan("pro", { tombstone: true }));
    // Searches read ready rows: enrich them (embeddings, scores).
    await enrichAll(t.db, (await get("/workspace")).id);
  });
  afterAll(() => t.close());

  const document = (asOf: string) => get(`/document?entity=acme&as_of=${encodeURIComponent(asOf)}`);
  const planBelief = (doc: { beliefs: { key: string; id: string }[] }) =>
    doc.beliefs.find((b) => b.key === "plan")?.id;

  it("gives the document as it was: each slot's newest version then, a tombstone retracting it", async () => {
    expect(planBelief(await document(free.created_at))).toBe(free.id);
    expect(planBelief(await document(note.created_at))).toBe(free.id);
    expect(planBelief(await document(pro.created_at))).toBe(pro.id);
    const then = await document(retracted.created_at);
    expect(planBelief(then)).toBeUndefined();
    expect(then.retractions.map((r: { id: string }) => r.id)).toContain(retracted.id);
    const empty = await document(before);
    expect(empty).toMatchObject({ beliefs: [], retractions: [], freshness: [] });
    // Today's document agrees with as_of now.
    const now = await get("/document?entity=acme");
    expect((await document(new Date(Date.now() + 1000).toISOString())).beliefs).toEqual(now.beliefs);
  });

  it("gives the timeline as it was: the records created by then, newest first", async () => {
    const ids = async (asOf: string) =>
      (await get(`/timeline?entity=acme&as_of=${encodeURIComponent(asOf)}`)).records.map(
        (r: { id: string }) => r.id,
      );
    expect(await ids(before)).toEqual([]);
    expect(await ids(free.created_at)).toEqual([free.id]);
    expect(await ids(pro.created_at)).toEqual([pro.id, note.id, free.id]);
    expect(await ids(retracted.created_at)).toEqual([retracted.id, pro.id, note.id, free.id]);
    // An offset names the same instant.
    const offset = new Date(Date.parse(free.created_at)).toISOString().replace("Z", "+00:00");
    expect(await ids(offset)).toEqual([free.id]);
  });

  it("searches memory as it was, in every mode and through sources: current values then, retracted slots left out", async () => {
    const search = async (spec: object, asOf: string) => {
      const res = await t.app.inject({
        method: "POST",
        url: "/search",
        headers,
        payload: { ...spec, as_of: asOf },
      });
      expect(res.statusCode, res.body).toBe(200);
      return res.json().hits.map((hit: { id: string }) => hit.id) as string[];
    };
    const facts = { collections: ["customer_facts"], entities: ["acme"] };
    for (const mode of ["text", "vector", "hybrid", "recent"]) {
      const spec = { mode, q: "plan", k: 10, scope: facts };
      expect([mode, await search(spec, free.created_at)]).toEqual([mode, [free.id]]);
      expect([mode, await search(spec, pro.created_at)]).toEqual([mode, [pro.id]]);
      expect([mode, await search(spec, retracted.created_at)]).toEqual([mode, []]);
      expect([mode, await search(spec, before)]).toEqual([mode, []]);
    }
    // Structured mode (over the events, whose priority sorts): only what existed by then.
    const events = { collections: ["customer_events"], entities: ["acme"] };
    const structured = {
      mode: "structured",
      k: 10,
      scope: events,
      order_by: [{ field: "priority", direction: "desc" }],
    };
    expect(await search(structured, free.created_at)).toEqual([]);
    expect(await search(structured, note.created_at)).toEqual([note.id]);
    // Every version: the history by then, unless the slot was retracted by then.
    const all = { mode: "recent", k: 10, scope: { ...facts, versions: "all" } };
    expect(await search(all, pro.created_at)).toEqual([pro.id, free.id]);
    expect(await search(all, retracted.created_at)).toEqual([]);
    // Sources share the request's as_of.
    const sources = {
      q: "plan",
      k: 10,
      sources: [
        { name: "facts", mode: "text", k: 10, scope: facts },
        {
          name: "events",
          mode: "recent",
          k: 10,
          scope: { collections: ["customer_events"], entities: ["acme"] },
        },
      ],
      fuse: { kind: "rrf" },
    };
    expect((await search(sources, free.created_at)).sort()).toEqual([free.id]);
    expect((await search(sources, note.created_at)).sort()).toEqual([free.id, note.id].sort());
    // Without as_of: memory now, where the plan is retracted.
    const now = await t.app.inject({
      method: "POST",
      url: "/search",
      headers,
      payload: { mode: "recent", k: 10, scope: facts },
    });
    expect(now.json().hits).toEqual([]);
  });

  it("packs GET /context as memory was: state, relevant and recent as of the moment", async () => {
    const context = async (asOf: string) => {
      const body = await get(`/context?entity=acme&task=plan&as_of=${encodeURIComponent(asOf)}`);
      return new Map<string, string[]>(
        body.components.map((c: { name: string; record_ids: string[] }) => [c.name, c.record_ids]),
      );
    };
    const atFree = await context(free.created_at);
    expect(atFree.get("state")).toEqual([free.id]);
    expect(atFree.get("recent")).toEqual([]);
    const atPro = await context(pro.created_at);
    expect(atPro.get("state")).toEqual([pro.id]);
    // The event was found by the search as of then (the plan is already in state).
    expect([...(atPro.get("relevant") ?? []), ...(atPro.get("recent") ?? [])]).toContain(note.id);
    expect((await context(retracted.created_at)).get("state")).toEqual([]);
    const withConsumer = await t.app.inject({
      url: `/context?entity=acme&consumer=c1&as_of=${encodeURIComponent(pro.created_at)}`,
      headers,
    });
    expect(withConsumer.statusCode).toBe(422);
    expect(withConsumer.json().errors).toContainEqual(expect.objectContaining({ path: "consumer" }));
  });

  it("refuses an as_of that is not a timestamp with a timezone, with 422 naming it", async () => {
    for (const asOf of ["yesterday", "2026-11-20T09:30:00", "2026-02-30T00:00:00Z", "", "1700000000"]) {
      for (const path of ["/document?entity=acme&", "/timeline?entity=acme&", "/context?entity=acme&"]) {
        const res = await t.app.inject({ url: `${path}as_of=${encodeURIComponent(asOf)}`, headers });
        expect([path, asOf, res.statusCode]).toEqual([path, asOf, 422]);
        expect(res.json().code).toBe("request_schema");
        expect(res.json().errors.map((e: { path: string }) => e.path)).toContain("querystring.as_of");
      }
      const search = await t.app.inject({
        method: "POST",
        url: "/search",
        headers,
        payload: { mode: "recent", k: 5, as_of: asOf },
      });
      expect([asOf, search.statusCode]).toEqual([asOf, 422]);
      expect(search.json().errors.map((e: { path: string }) => e.path)).toContain("as_of");
    }
  });

  it("never brings an erased record back", async () => {
    const erased = await t.app.inject({
      method: "POST",
      url: "/erase",
      headers,
      payload: { records: [free.id] },
    });
    expect(erased.statusCode, erased.body).toBe(200);
    expect(planBelief(await document(note.created_at))).toBeUndefined();
    const timeline = await get(`/timeline?entity=acme&as_of=${encodeURIComponent(note.created_at)}`);
    expect(timeline.records.map((r: { id: string }) => r.id)).toEqual([note.id]);
  });
});
