// The benchmark's bulk loader (bench/bulk-load.ts) against the API: one corpus written through
// POST /records and enriched by the worker, the same corpus bulk-loaded into another workspace;
// both hold the same rows, text statistics, embeddings and search results.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bulkLoad } from "../../bench/bulk-load.js";
import { generateCorpus } from "../../bench/corpus.js";
import { buildVocabulary } from "../../bench/vocabulary.js";
import { createTestApp, type TestApp, testConfig } from "../support/app.js";
import { enrichAll } from "../support/worker.js";

const ROWS = 600;

describe("the bulk loader", () => {
  let t: TestApp;
  let api: { id: string; headers: { authorization: string } };
  let bulk: { id: string; headers: { authorization: string } };
  const corpus = generateCorpus(7, ROWS, buildVocabulary(7, 400, 1.07));

  beforeAll(async () => {
    t = await createTestApp();
    api = await t.workspace("through-api");
    bulk = await t.workspace("bulk-loaded");
    // Hashed vectors: the corpus's generated words have no English word vector.
    await t.publishExample(api.headers, "fake");
    await t.publishExample(bulk.headers, "fake");
    for (let i = 0; i < corpus.length; i += 100) await t.writeRecords(api.headers, corpus.slice(i, i + 100));
    await enrichAll(t.db, api.id);
    const figures = await bulkLoad(t.db, testConfig(), [
      { workspace: { id: bulk.id, name: "bulk-loaded" }, rows: corpus },
    ]);
    expect(figures.rows).toBe(ROWS);
  }, 120_000);
  afterAll(() => t.close());

  /** A statement's rows for one workspace. */
  const rows = async (sql: string, workspaceId: string) => (await t.db.query(sql, [workspaceId])).rows;

  it("writes the same rows, every one ready", async () => {
    const sql = `SELECT seq, collection, collection_version, entity, type, key, status, tombstone, text,
        content, scores, annotations, ready, search_config, search_length, search_text::text AS search_text,
        EXISTS (SELECT 1 FROM heads h WHERE h.workspace_id = r.workspace_id AND h.record_id = r.id) AS head
      FROM records r WHERE workspace_id = $1 ORDER BY seq`;
    const loaded = await rows(sql, bulk.id);
    expect(loaded).toHaveLength(ROWS);
    expect(loaded.every((row) => row.ready)).toBe(true);
    expect(loaded).toEqual(await rows(sql, api.id));
  });

  it("keeps the same text statistics", async () => {
    const stats =
      "SELECT config, lexeme, docs, occurrences FROM text_stats WHERE workspace_id = $1 ORDER BY config, lexeme";
    const loaded = await rows(stats, bulk.id);
    expect(loaded.length).toBeGreaterThan(100);
    expect(loaded).toEqual(await rows(stats, api.id));
    const counters = "SELECT * FROM workspace_counters WHERE workspace_id = $1";
    const [bulkCounters, apiCounters] = [
      (await rows(counters, bulk.id))[0],
      (await rows(counters, api.id))[0],
    ];
    expect({ ...bulkCounters, workspace_id: null }).toEqual({ ...apiCounters, workspace_id: null });
  });

  it("stores the same embeddings", async () => {
    const sql = `SELECT r.seq, e.space, e.embedding::text AS embedding FROM embeddings e
      JOIN records r ON r.workspace_id = e.workspace_id AND r.id = e.record_id
      WHERE e.workspace_id = $1 ORDER BY r.seq, e.space`;
    const loaded = await rows(sql, bulk.id);
    expect(loaded.length).toBeGreaterThan(ROWS / 2);
    expect(loaded).toEqual(await rows(sql, api.id));
  });

  it("answers searches alike", async () => {
    const queries = corpus
      .filter((row) => row.collection === "customer_events")
      .slice(0, 12)
      .map((row) => ({ q: row.text.split(" ").slice(0, 2).join(" "), entity: row.entity }));
    // Text across the workspace (its proposals are exact); vector and hybrid within the row's
    // entity, which scans exactly: across the workspace they walk the HNSW index every test's
    // workspaces share, whose approximate answer differs from one workspace to the next.
    const searches = {
      text: { rank: ["text_match"], entities: false },
      vector: { rank: ["similarity"], entities: true },
      hybrid: { rank: ["sum", [["text_match"], ["similarity"]]], entities: true },
    };
    const found: Record<string, number> = {};
    for (const { q, entity } of queries) {
      for (const [mode, { rank: formula, entities }] of Object.entries(searches)) {
        const scope = { collections: ["customer_events"], ...(entities ? { entities: [entity] } : {}) };
        const body = { q, mode, k: 20, rank: formula, scope };
        const [fromBulk, fromApi] = await Promise.all(
          [bulk, api].map(async (ws) => {
            const res = await t.app.inject({
              method: "POST",
              url: "/search",
              headers: ws.headers,
              payload: body,
            });
            expect(res.statusCode, res.body).toBe(200);
            const seqs = await seqsOf(
              ws.id,
              res.json().hits.map((h: { id: string }) => h.id),
            );
            // Ties may come in either order: compare (score, seq) sorted.
            return res
              .json()
              .hits.map((h: { id: string; rank_score: number }) => [
                Math.round(h.rank_score * 1e9),
                seqs.get(h.id),
              ])
              .sort(
                (a: number[], b: number[]) =>
                  (b[0] as number) - (a[0] as number) || (a[1] as number) - (b[1] as number),
              );
          }),
        );
        expect(fromBulk, `${mode} ${q}`).toEqual(fromApi);
        found[mode] = (found[mode] ?? 0) + fromApi.length;
      }
    }
    // Every mode compared real answers.
    for (const mode of Object.keys(searches)) expect(found[mode], mode).toBeGreaterThan(queries.length);
  });

  const seqsOf = async (workspaceId: string, ids: string[]) =>
    new Map(
      (
        await t.db.query<{ id: string; seq: string }>(
          "SELECT id, seq FROM records WHERE workspace_id = $1 AND id = ANY($2::uuid[])",
          [workspaceId, ids],
        )
      ).rows.map((row) => [row.id, Number(row.seq)]),
    );
});
