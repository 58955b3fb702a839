// Vector candidates come from a per-space HNSW index where pgvector serves (PGlite, a server with
// the extension), and from an exact scan where it does not (a server without it, or run with
// VECTOR_LAYOUT=exact): both layouts, same answers.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { openPostgres } from "../../src/platform/db/index.js";
import { HNSW_SESSION_SQL } from "../../src/platform/db/sql.js";
import { sealDeferredVectors } from "../../src/records/index.js";
import { createTestApp, type TestApp } from "../support/app.js";
import { testVectorLayout } from "../support/urls.js";
import { enrichAll } from "../support/worker.js";

const WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima".split(" ");

describe("vector index per embedding space", () => {
  let t: TestApp;
  let headers: { authorization: string };
  const search = async (body: object) => {
    const res = await t.app.inject({ method: "POST", url: "/search", headers, payload: body });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  const hnswIndexes = async () =>
    (
      await t.db.query<{ indexname: string; indexdef: string }>(
        "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'embeddings' AND indexdef ILIKE '%hnsw%'",
      )
    ).rows;

  beforeAll(async () => {
    // Every workspace walks the index: this one is far smaller than VECTOR_EXACT_ROWS, below
    // which searches scan exactly (test/integration/vector-tenancy.test.ts).
    t = await createTestApp({ env: { VECTOR_EXACT_ROWS: "0" } });
    const ws = await t.workspace("vectors");
    headers = ws.headers;
    // Hashed vectors: at 120 rows the planner walks the HNSW index for them, where it scans
    // 100-dimension word vectors exactly; this file is about the index, not about meaning.
    await t.publishExample(headers, "fake");
    // 120 events, each a distinct pair of words, so every query has one exact nearest record.
    const records = WORDS.flatMap((a, i) =>
      WORDS.slice(i + 1).map((b) => ({
        collection: "customer_events",
        entity: `c-${a}`,
        type: "note",
        text: `${a} ${b}`,
      })),
    );
    const res = await t.app.inject({ method: "POST", url: "/records", headers, payload: { records } });
    expect(res.statusCode, res.body).toBe(200);
    await enrichAll(t.db, ws.id);
    await t.db.exec("ANALYZE");
  });
  afterAll(() => t.close());

  it("publishing a catalog creates one HNSW index for its space (pgvector) or none (exact scan)", async () => {
    const indexes = await hnswIndexes();
    if (!t.db.hasVector) {
      expect(indexes).toEqual([]);
      return;
    }
    expect(indexes).toHaveLength(1);
    expect(indexes[0]?.indexdef).toMatch(/vector\(256\)/);
    expect(indexes[0]?.indexdef).toMatch(/fake-256-v1/);
    // Publishing again (same space) adds nothing.
    await t.publishExample(headers, "fake");
    expect(await hnswIndexes()).toHaveLength(1);
  });

  it("vector search finds the nearest record and reports the layout that served it", async () => {
    const before = await indexScans();
    const body = await search({ mode: "vector", q: "delta kilo", k: 3, include: ["text"] });
    expect(body.hits[0].text).toBe("delta kilo");
    expect(body.hits[0].score).toBe(1);
    const engine = t.db.distributed ? "citus" : t.db.kind;
    expect(body.backend[0].layout).toBe(`${engine}/${t.db.hasVector ? "hnsw" : "exact"}`);
    if (t.db.hasVector) await walkedSince(before);
  });

  it("the index respects filters: other scopes still return only matching records", async () => {
    const body = await search({
      mode: "vector",
      q: "alpha bravo",
      k: 5,
      scope: { types: ["note"], occurred_after: "2000-01-01T00:00:00Z" },
      include: ["type", "text"],
    });
    expect(body.hits.length).toBe(5);
    expect(body.hits[0].text).toBe("alpha bravo");
  });

  const entityScoped = () =>
    search({
      mode: "vector",
      q: "golf hotel",
      k: 100,
      scope: { entities: ["c-golf"] },
      include: ["entity", "text"],
    });

  it("an entity-scoped search scans that entity's rows exactly: all of them", async () => {
    const body = await entityScoped();
    // c-golf holds the pairs golf-x for the five words after golf: every one comes back.
    expect(body.hits.map((h: { text: string }) => h.text).sort()).toEqual([
      "golf hotel",
      "golf india",
      "golf juliet",
      "golf kilo",
      "golf lima",
    ]);
    expect(body.hits[0].text).toBe("golf hotel");
  });

  it("an entity-scoped search does not walk the HNSW index, while a workspace-wide one does", async (ctx) => {
    // The exact layout has no HNSW index to walk (the first test checks there is none).
    if (!t.db.hasVector) ctx.skip();
    const before = await indexScans();
    await entityScoped();
    expect(await indexScans()).toBe(before);
    // The same count sees a walk: the one of a search not scoped by entity.
    await search({ mode: "vector", q: "golf hotel", k: 3 });
    await walkedSince(before);
  });

  it("a walk that stops before it reaches a workspace's rows is finished by an exact scan", async (ctx) => {
    if (!t.db.hasVector) ctx.skip();
    // A crowd of 1,320 notes near the query in one workspace, and twelve calls in another, each
    // one word and "call" (two share a word with the query), all in the one shared index.
    const crowd = await t.workspace("crowd");
    await t.publishExample(crowd.headers, "fake");
    const notes = WORDS.flatMap((a, i) =>
      WORDS.slice(i + 1).flatMap((b) =>
        Array.from({ length: 20 }, (_, n) => ({
          collection: "customer_events",
          entity: "crowd",
          type: "note",
          text: `${a} ${b} n${n}`,
        })),
      ),
    );
    for (let i = 0; i < notes.length; i += 500) await t.writeRecords(crowd.headers, notes.slice(i, i + 500));
    await enrichAll(t.db, crowd.id);
    const few = await t.workspace("few");
    await t.publishExample(few.headers, "fake");
    await t.writeRecords(
      few.headers,
      WORDS.map((word) => ({
        collection: "customer_events",
        entity: "calls",
        type: "call",
        text: `${word} call`,
      })),
    );
    await enrichAll(t.db, few.id);
    // Into the index: a deferred embedding is scanned exactly until the worker seals it.
    await sealDeferredVectors(t.db, { bulkMinRows: 1000, buildMemory: "64MB", mergeBatch: 500 });
    await t.db.exec("ANALYZE");
    // At these settings the walk stops after a few neighbours, the crowd's, as one over a large
    // shared index stops at hnsw.max_scan_tuples (20,000) or inside a cluster of identical
    // vectors. Without the exact scan that finishes it, 3 or 4 of the 12 calls came back.
    const shallow = await shallowWalks();
    try {
      const res = await shallow.app.inject({
        method: "POST",
        url: "/search",
        headers: few.headers,
        payload: { mode: "vector", q: "alpha bravo", k: 12, include: ["text"] },
      });
      expect(res.statusCode, res.body).toBe(200);
      const texts = res.json().hits.map((h: { text: string }) => h.text);
      expect(texts).toHaveLength(12);
      expect(texts.slice(0, 2).sort()).toEqual(["alpha call", "bravo call"]);
    } finally {
      await shallow.close();
    }
  }, 60_000);

  /**
   * The app on sessions whose HNSW walks stop early (hnsw.ef_search 10, hnsw.max_scan_tuples 10)
   * and whose planner walks even a workspace of twelve vectors (a sort costs it too much), as it
   * does a large one's.
   */
  async function shallowWalks(): Promise<{ app: TestApp["app"]; close(): Promise<void> }> {
    const settings = { "hnsw.ef_search": "10", "hnsw.max_scan_tuples": "10", enable_sort: "off" };
    const url = t.testDb.url;
    if (!url) {
      // PGlite has one session: set there, and put back after.
      await t.db.exec(
        Object.entries(settings)
          .map(([k, v]) => `SET ${k} = ${v}`)
          .join("; "),
      );
      return {
        app: t.app,
        close: () => t.db.exec(`${HNSW_SESSION_SQL}; RESET hnsw.max_scan_tuples; RESET enable_sort`),
      };
    }
    // A server: a second pool whose connection string's options win over the sessions' own.
    const options = Object.entries(settings)
      .map(([k, v]) => `-c ${k}=${v}`)
      .join(" ");
    const withOptions = new URL(url);
    withOptions.searchParams.set("options", options);
    const db = await openPostgres({
      connectionString: withOptions.toString(),
      vectorLayout: testVectorLayout(),
    });
    const app = await createTestApp({
      env: { VECTOR_EXACT_ROWS: "0" },
      testDb: { db, url, close: () => db.close() },
    });
    return { app: app.app, close: () => app.close() };
  }

  /**
   * Waits until the count shows a walk since `before`: the search's session flushes its counts
   * when it goes idle, but at most once a second, and one that flushed just before waits for
   * PostgreSQL's idle interval (10 s) to flush again.
   */
  async function walkedSince(before: number): Promise<void> {
    await vi.waitFor(async () => expect(await indexScans()).toBeGreaterThan(before), {
      timeout: 15_000,
      interval: 100,
    });
  }

  /** Walks of the spaces' HNSW indexes so far (none exist on the exact layout). */
  async function indexScans(): Promise<number> {
    // Outside a transaction: a session flushes its counts when it goes idle.
    await t.db.query("SELECT pg_stat_force_next_flush()");
    return t.db.transaction(async (tx) => {
      // Citus hides its shards, whose indexes the scans use, unless asked to show them.
      if (t.db.distributed) await tx.query("SET LOCAL citus.show_shards_for_app_name_prefixes = '*'");
      const { rows } = await tx.query<{ n: number }>(
        "SELECT COALESCE(sum(idx_scan), 0)::int AS n FROM pg_stat_user_indexes WHERE indexrelname LIKE 'embeddings_hnsw_%'",
      );
      return rows[0]?.n ?? 0;
    });
  }
});
