import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { markAccessed } from "../../src/records/index.js";
import { createTestApp, type TestApp } from "../support/app.js";
import { waitFor } from "../support/wait.js";
import { enrichAll, startTestWorker } from "../support/worker.js";

describe("search", () => {
  let t: TestApp;
  let headers: { authorization: string };
  let workspaceId: string;
  const ids: Record<string, string> = {};
  const search = (body: object) => t.app.inject({ method: "POST", url: "/search", headers, payload: body });
  const ok = async (body: object) => {
    const res = await search(body);
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  const write = async (name: string, row: object) => {
    const res = await t.app.inject({ method: "POST", url: "/records", headers, payload: { records: [row] } });
    expect(res.statusCode, res.body).toBe(200);
    ids[name] = res.json().inserted[0].id;
  };

  beforeAll(async () => {
    t = await createTestApp();
    const ws = await t.workspace("search");
    headers = ws.headers;
    workspaceId = ws.id;
    await t.publishExample(headers);
    const event = (text: string, extra: object = {}) => ({
      collection: "customer_events",
      entity: "acme",
      type: "ticket",
      text,
      ...extra,
    });
    await write(
      "card",
      event("Card declined at checkout", {
        content: { channel: "email", priority: 5 },
        occurred_at: "2026-01-01T10:00:00Z",
      }),
    );
    await write(
      "refund",
      event("Refund requested for duplicate charge", {
        content: { channel: "chat", priority: 3 },
        occurred_at: "2026-01-02T10:00:00Z",
      }),
    );
    await write(
      "login",
      event("Cannot login <script>alert(1)</script> & more", {
        content: { channel: "web", priority: 1 },
        occurred_at: "2026-01-03T10:00:00Z",
      }),
    );
    await write("other", { ...event("Card declined for globex"), entity: "globex" });
    await write("planOld", {
      collection: "customer_facts",
      entity: "acme",
      type: "fact",
      key: "plan",
      text: "free plan",
      content: { value: "free" },
    });
    await write("planNew", {
      collection: "customer_facts",
      entity: "acme",
      type: "fact",
      key: "plan",
      text: "pro plan",
      content: { value: "pro" },
    });
    await write("phone", {
      collection: "customer_facts",
      entity: "acme",
      type: "fact",
      key: "phone",
      text: "phone 555",
      content: { value: "555" },
    });
    await write("phoneGone", {
      collection: "customer_facts",
      entity: "acme",
      type: "fact",
      key: "phone",
      text: "",
      tombstone: true,
      content: {},
    });
    await write("draft", {
      collection: "customer_facts",
      entity: "acme",
      type: "fact",
      key: "plan",
      text: "enterprise plan draft",
      status: "draft",
      content: { value: "ent" },
    });
    await enrichAll(t.db, workspaceId);
  });
  afterAll(() => t.close());

  it("text mode finds records with any of the terms, top score 1.0", async () => {
    const body = await ok({
      mode: "text",
      q: "declined refund",
      scope: { entities: ["acme"] },
      include: ["text"],
    });
    expect(body.hits.map((h: any) => h.id).sort()).toEqual([ids.card, ids.refund].sort());
    expect(body.hits[0]).toMatchObject({ rank: 1, score: 1 });
    expect(typeof body.hits[0].rank_score).toBe("number");
    expect(body.ranking).toMatchObject({
      kind: "rank_expression",
      scored: true,
      normalization: "min_max",
      native_score_field: "rank_score",
    });
    expect(body.backend[0]).toMatchObject({
      name: "support",
      layout: expect.stringMatching(/\/(hnsw|exact)$/),
    });
    expect(body.profiles).toEqual(["support"]);
    expect(body.rendered).toBeNull();
    expect(body.truncated).toBe(false);
  });

  it("structured mode orders by order_by with null scores", async () => {
    const body = await ok({
      mode: "structured",
      scope: { collections: ["customer_events"], entities: ["acme"] },
      order_by: [{ field: "priority", direction: "desc" }],
      fields: ["priority"],
    });
    expect(body.hits.map((h: any) => h.id)).toEqual([ids.card, ids.refund, ids.login]);
    expect(body.hits[0]).toMatchObject({ score: null, fields: { priority: 5 } });
    expect(body.hits[0].rank_score).toBeUndefined();
    expect(body.ranking).toEqual({ kind: "structured", scored: false });
  });

  it("recent mode ranks the newest occurrence first", async () => {
    const body = await ok({
      mode: "recent",
      scope: { collections: ["customer_events"], entities: ["acme"] },
    });
    expect(body.hits[0].id).toBe(ids.login);
  });

  it("vector and hybrid modes rank the closest text first", async () => {
    for (const mode of ["vector", "hybrid"]) {
      const body = await ok({
        mode,
        q: "Refund requested for duplicate charge",
        scope: { collections: ["customer_events"] },
      });
      expect(body.hits[0].id).toBe(ids.refund);
    }
  });

  it("returns only current values: no superseded, retracted or draft rows", async () => {
    const body = await ok({ mode: "recent", scope: { collections: ["customer_facts"], entities: ["acme"] } });
    expect(body.hits.map((h: any) => h.id)).toEqual([ids.planNew]);
    const all = await ok({
      mode: "recent",
      scope: { collections: ["customer_facts"], entities: ["acme"], versions: "all" },
    });
    expect(all.hits.map((h: any) => h.id).sort()).toEqual([ids.planNew, ids.planOld].sort());
    const drafts = await ok({
      mode: "recent",
      scope: { collections: ["customer_facts"], entities: ["acme"], status: "draft" },
    });
    expect(drafts.hits.map((h: any) => h.id)).toEqual([ids.draft]);
  });

  it("never returns unready records, and a newer unready value hides the older one (no fallback)", async () => {
    const fact = (text: string) => ({
      collection: "customer_facts",
      entity: "initech",
      type: "fact",
      key: "plan",
      text,
      content: { value: text },
    });
    await write("initechBasic", fact("basic plan"));
    const worker = await startTestWorker(t.db);
    await waitFor(async () => {
      const { rows } = await t.db.query<{ ready: boolean }>(
        "SELECT ready FROM records WHERE workspace_id = $1 AND id = $2",
        [workspaceId, ids.initechBasic],
      );
      return rows[0]?.ready === true;
    });
    await worker.stop();
    const plan = { mode: "text", q: "plan", scope: { entities: ["initech"] } };
    expect((await ok(plan)).hits.map((h: any) => h.id)).toEqual([ids.initechBasic]);
    // No worker now: the successor stays unready.
    await write("initechGold", fact("gold plan"));
    await write("initechEvent", {
      collection: "customer_events",
      entity: "initech",
      type: "ticket",
      text: "plan change requested",
    });
    for (const mode of ["text", "hybrid", "vector", "recent"]) {
      expect((await ok({ ...plan, mode })).hits, mode).toEqual([]);
    }
    // History still holds the older value; the unready one stays invisible.
    const all = await ok({ ...plan, scope: { ...plan.scope, versions: "all" } });
    expect(all.hits.map((h: any) => h.id)).toEqual([ids.initechBasic]);
  });

  it("marks returned records accessed (age_hours last_accessed), at most once a minute", async () => {
    const accessed = async (id: string) =>
      (
        await t.db.query<{ at: Date | null }>(
          "SELECT last_accessed AS at FROM record_access WHERE workspace_id = $1 AND record_id = $2",
          [workspaceId, id],
        )
      ).rows[0]?.at ?? null;
    await t.db.query("DELETE FROM record_access WHERE workspace_id = $1", [workspaceId]);
    const refund = { mode: "text", q: "refund", k: 1, scope: { entities: ["acme"] } };
    const byAccess = { ...refund, rank: ["age_hours", "last_accessed"] };
    const body = await ok(refund);
    expect(body.hits.map((h: any) => h.id)).toEqual([ids.refund]);
    const first = await accessed(ids.refund as string);
    expect(first).toBeInstanceOf(Date);
    expect(await accessed(ids.card as string)).toBeNull();
    // Just accessed: the signal reads about 0 hours.
    const aged = await ok(byAccess);
    expect(aged.hits[0].rank_score).toBeLessThan(0.01);
    expect(await accessed(ids.refund as string)).toEqual(first);
    // Older than a minute: the next search refreshes it.
    await t.db.query(
      "UPDATE record_access SET last_accessed = now() - interval '2 hours' WHERE record_id = $1",
      [ids.refund],
    );
    const stale = await ok(byAccess);
    expect(stale.hits[0].rank_score).toBeCloseTo(2, 2);
    expect((await accessed(ids.refund as string))?.getTime()).toBeGreaterThan(Date.now() - 60_000);
  });

  it("marks only hits that still exist: one erased since its search is skipped", async () => {
    const marked = async () =>
      (
        await t.db.query<{ id: string }>(
          "SELECT record_id AS id FROM record_access WHERE workspace_id = $1",
          [workspaceId],
        )
      ).rows.map((row) => row.id);
    await t.db.query("DELETE FROM record_access WHERE workspace_id = $1", [workspaceId]);
    await markAccessed(t.db, workspaceId, [randomUUID(), ids.card as string]);
    expect(await marked()).toEqual([ids.card]);
  });

  it("never returns another workspace's records", async () => {
    const other = await t.workspace("search-other");
    await t.publishExample(other.headers);
    const res = await t.app.inject({
      method: "POST",
      url: "/search",
      headers: other.headers,
      payload: { mode: "text", q: "declined" },
    });
    expect(res.json().hits).toEqual([]);
  });

  it("applies strict occurred_at bounds and where conditions", async () => {
    const bounded = await ok({
      mode: "recent",
      scope: {
        collections: ["customer_events"],
        occurred_after: "2026-01-01T10:00:00Z",
        occurred_before: "2026-01-03T10:00:00Z",
      },
    });
    expect(bounded.hits.map((h: any) => h.id)).toEqual([ids.refund]);
    const where = await ok({
      mode: "recent",
      scope: { collections: ["customer_events"] },
      where: { channel: { in: ["chat", "web"] }, priority: { gte: 2 } },
    });
    expect(where.hits.map((h: any) => h.id)).toEqual([ids.refund]);
  });

  it("renders escaped rows, fenced when asked", async () => {
    const body = await ok({
      mode: "text",
      q: "login",
      render: true,
      fence: { tag: "memory", preamble: "Records <below>" },
    });
    expect(body.rendered).toContain('<memory untrusted="true">');
    expect(body.rendered).toContain("&lt;script&gt;");
    expect(body.rendered).not.toContain("<script>");
    expect(body.rendered).toContain("Records &lt;below&gt;");
  });

  it("fuses sources by RRF: rank_score is the sum of weight / (rank_constant + rank)", async () => {
    const body = await ok({
      q: "declined refund login",
      sources: [
        { name: "words", mode: "text", scope: { collections: ["customer_events"] }, weight: 2 },
        { name: "newest", mode: "recent", scope: { collections: ["customer_events"] } },
      ],
      fuse: { kind: "rrf", rank_constant: 10 },
    });
    expect(body.ranking.kind).toBe("rrf");
    for (const hit of body.hits) {
      const weights: Record<string, number> = { words: 2, newest: 1 };
      const expected = Object.entries(hit.source_ranks as Record<string, number>).reduce(
        (sum, [name, rank]) => sum + (weights[name] as number) / (10 + rank),
        0,
      );
      expect(hit.rank_score).toBeCloseTo(expected, 12);
    }
    expect(body.backend.map((b: any) => b.source)).toEqual(["words", "newest"]);
  });

  it("reads last_accessed for a rank or fusion boost that uses it, whatever the source's own rank", async () => {
    await t.db.query("DELETE FROM record_access WHERE workspace_id = $1", [workspaceId]);
    await t.db.query(
      "INSERT INTO record_access (workspace_id, record_id, last_accessed) VALUES ($1, $2, now() - interval '2 hours')",
      [workspaceId, ids.refund],
    );
    const scope = { entities: ["acme"], collections: ["customer_events"] };
    // The source ranks by recency only; the boost multiplies its RRF score by the access age.
    const body = await ok({
      q: "refund",
      k: 1,
      sources: [{ name: "words", mode: "text", scope, rank: ["age_hours", "occurred_at"] }],
      fuse: { kind: "rrf", rank_constant: 10 },
      boost: ["age_hours", "last_accessed"],
    });
    expect(body.hits.map((h: any) => h.id)).toEqual([ids.refund]);
    expect(body.hits[0].rank_score).toBeCloseTo((1 / 11) * 2, 2);
    // Marked by that search: now about 0 hours.
    const again = await ok({ q: "refund", k: 1, scope, mode: "text", rank: ["age_hours", "last_accessed"] });
    expect(again.hits[0].rank_score).toBeLessThan(0.01);
  });

  it("refuses an oversized response with 409 response_too_large", async () => {
    const small = await createTestApp({ env: { MAX_RESPONSE_BYTES: "1024" }, testDb: t.testDb });
    try {
      const res = await small.app.inject({
        method: "POST",
        url: "/search",
        headers,
        payload: {
          mode: "recent",
          include: ["text", "collection", "type", "entity", "occurred_at", "created_at"],
          render: true,
        },
      });
      expect(res.statusCode).toBe(409);
      expect(res.json().code).toBe("response_too_large");
    } finally {
      await small.app.close();
    }
  });

  it("GET /search runs a rendered hybrid search and refuses other parameters", async () => {
    const res = await t.app.inject({ url: "/search?q=refund&entity=acme&k=3", headers });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().hits[0]).toMatchObject({
      id: ids.refund,
      collection: "customer_events",
      type: "ticket",
    });
    expect(typeof res.json().rendered).toBe("string");
    expect((await t.app.inject({ url: "/search?q=refund&mode=text", headers })).statusCode).toBe(422);
    expect((await t.app.inject({ url: "/search", headers })).statusCode).toBe(422);
  });

  it("refuses invalid requests with 422 request_schema", async () => {
    const res = await search({ mode: "text" });
    expect(res.statusCode).toBe(422);
    expect(res.json().code).toBe("request_schema");
  });

  it("refuses every combined-search rule violation with 422 request_schema naming the path", async () => {
    const source = (name: string, extra: object = {}) => ({
      name,
      mode: "text",
      scope: { collections: ["customer_events"] },
      ...extra,
    });
    const two = { q: "card", fuse: { kind: "rrf" }, sources: [source("a"), source("b")] };
    const cases: [object, string][] = [
      [{ ...two, sources: [] }, "sources"],
      [{ ...two, sources: Array.from({ length: 9 }, (_, i) => source(`s${i}`)) }, "sources"],
      [{ ...two, sources: [source("a"), source("a")] }, "sources.1.name"],
      [{ ...two, sources: [source("a", { weight: 0 }), source("b")] }, "sources.0.weight"],
      [{ ...two, sources: [source("a", { weight: 101 }), source("b")] }, "sources.0.weight"],
      [{ ...two, sources: [source("a", { k: 101 }), source("b")] }, "sources.0.k"],
      [{ ...two, sources: [source("a", { fuse: { kind: "rrf" } }), source("b")] }, "sources.0.fuse"],
      [{ q: "card", sources: two.sources }, "fuse"],
      [{ ...two, fuse: { kind: "linear" } }, "fuse.kind"],
      [{ ...two, fuse: { kind: "rrf", rank_constant: 0 } }, "fuse.rank_constant"],
      [{ ...two, fuse: { kind: "rrf", rank_constant: 1001 } }, "fuse.rank_constant"],
      [{ ...two, mode: "text" }, "mode"],
      [{ ...two, scope: { entities: ["acme"] } }, "scope"],
      [{ ...two, where: { priority: { gte: 1 } } }, "where"],
      [{ ...two, order_by: [{ field: "priority" }] }, "order_by"],
      [{ ...two, rank: ["text_match"] }, "rank"],
      [{ fuse: two.fuse, sources: two.sources }, "q"],
      [{ ...two, sources: [{ name: "a", mode: "text" }, source("b")] }, "sources.0.scope.collections"],
      [{ ...two, boost: ["similarity"] }, "boost"],
      [{ ...two, boost: ["text_match"] }, "boost"],
      [{ mode: "recent", fuse: { kind: "rrf" } }, "fuse"],
      [{ mode: "recent", boost: ["const", 1] }, "boost"],
    ];
    for (const [body, path] of cases) {
      const res = await search(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(422);
      expect(res.json().code).toBe("request_schema");
      const paths = res.json().errors.map((e: { path: string }) => e.path);
      expect(
        paths.some((p: string) => p === path || p.startsWith(`${path}.`)),
        `${JSON.stringify(body)} -> ${paths}`,
      ).toBe(true);
    }
  });

  describe("views", () => {
    const query = (name: string, body: object) =>
      t.app.inject({ method: "POST", url: `/views/${name}/query`, headers, payload: body });

    it("runs the active version and returns the wrapper", async () => {
      const res = await query("customer_history", { customer: "acme", question: "refund" });
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json();
      expect(body.view).toMatchObject({
        name: "customer_history",
        version: 1,
        hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      });
      expect(body.parameters).toEqual({ customer: "acme", question: "refund", limit: 10 });
      expect(body.input_record_ids).toEqual(body.hits.map((h: any) => h.id));
      expect(body.hits[0].id).toBe(ids.refund);
      expect(body.backend).toHaveLength(1);
    });

    it("refuses unknown, missing, mistyped and out-of-range parameters", async () => {
      for (const args of [
        { customer: "acme", question: "x", colour: "red" },
        { question: "x" },
        { customer: 5, question: "x" },
        { customer: "acme", question: "x", limit: 500 },
      ]) {
        const res = await query("customer_history", args);
        expect(res.statusCode).toBe(422);
        expect(res.json().code).toBe("request_schema");
      }
    });

    it("answers 404 view_not_found for an unknown view", async () => {
      const res = await query("nope", {});
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe("view_not_found");
    });
  });
});
