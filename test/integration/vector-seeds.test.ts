// A vector search's text seeds (docs/scaling.md, "Vector search among tenants"): beside its HNSW
// walk, a workspace-wide vector search scores exactly the best text matches of each of the
// query's less common words. Here the walk's reach is cut short (hnsw.max_scan_tuples 1: the
// iterative scan stops after its first beam), and the beam is filled by another workspace's
// records nearer to the query than any of this workspace's, so the walk alone returns none of
// the records that hold the query's word; the seeds find them, nearest first, under the search's
// own filters.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bulkLoad } from "../../bench/bulk-load.js";
import { generateCorpus, type WriteRow } from "../../bench/corpus.js";
import { rng } from "../../bench/random.js";
import { buildVocabulary } from "../../bench/vocabulary.js";
import { localEmbedding } from "../../src/models/local/adapter.js";
import { wordVectors } from "../../src/models/local/vectors.js";
import { openPostgres } from "../../src/platform/db/index.js";
import { similaritySql } from "../../src/search/candidates-sql.js";
import { Params } from "../../src/search/sql.js";
import { createTestApp, type TestApp, testConfig } from "../support/app.js";
import { LOCAL_SPACE } from "../support/embedders.js";
import { testVectorLayout } from "../support/urls.js";

/** A word of the local vectors that the generated corpus never writes. */
const WORD = "volcano";
const vocabulary = buildVocabulary(11, 340, 1.07);
/**
 * The walk's reach cut to its first beam, and the index used at this small size (where the
 * planner would rather sort every row).
 */
const WALK_SETTINGS = ["hnsw.max_scan_tuples = 1", "enable_seqscan = off", "enable_sort = off"];

function event(text: string, channel: string, at: number): WriteRow {
  return {
    collection: "customer_events",
    entity: "customer-0001",
    type: "chat",
    text,
    content: { channel, priority: 1, topic: "billing" },
    occurred_at: new Date(Date.UTC(2025, 5, 1) + at * 60_000).toISOString(),
  };
}

describe("vector search seeded by the query's words", () => {
  let t: TestApp;
  let walking: TestApp;
  let quiet: { id: string; headers: { authorization: string } };
  /** The record ids holding WORD in the quiet workspace, by channel. */
  const holding = new Map<string, string[]>();

  beforeAll(async () => {
    t = await createTestApp({ env: { VECTOR_EXACT_ROWS: "0" } });
    const crowd = await t.workspace("crowd");
    quiet = await t.workspace("quiet");
    await t.publishExample(crowd.headers);
    await t.publishExample(quiet.headers);
    expect(vocabulary.words).not.toContain(WORD);
    expect(localEmbedding(await wordVectors(), WORD).some((x) => x !== 0)).toBe(true);
    const random = rng(3);
    const word = () => vocabulary.words[vocabulary.rank(random)] as string;
    // Short records of the word: each nearer to the query than any record of the quiet workspace.
    const crowded = Array.from({ length: 1000 }, (_, i) => event(`${WORD} ${word()}`, "chat", i));
    // Longer records holding the word once, among the quiet workspace's corpus.
    const long = Array.from({ length: 4 }, (_, i) =>
      event(
        [...Array.from({ length: 3 }, word), WORD, ...Array.from({ length: 3 }, word)].join(" "),
        i % 2 === 0 ? "chat" : "email",
        i,
      ),
    );
    const rows = [...generateCorpus(5, 400, vocabulary), ...long];
    await bulkLoad(t.db, testConfig(), [
      { workspace: { id: crowd.id, name: "crowd" }, rows: crowded },
      { workspace: { id: quiet.id, name: "quiet" }, rows },
    ]);
    const { rows: held } = await t.db.query<{ id: string; channel: string }>(
      `SELECT id, content->>'channel' AS channel FROM records WHERE workspace_id = $1 AND text LIKE $2`,
      [quiet.id, `%${WORD}%`],
    );
    for (const row of held) holding.set(row.channel, [...(holding.get(row.channel) ?? []), row.id]);
    expect(held).toHaveLength(4);
    // The walk's reach cut to its first beam: PGlite's one session, or new server sessions.
    if (!t.testDb.url) {
      await t.db.exec(`SET ${WALK_SETTINGS.join("; SET ")}`);
      walking = t;
      return;
    }
    await t.db.exec(
      `DO $$ BEGIN ${WALK_SETTINGS.map((setting) => `EXECUTE format('ALTER DATABASE %I SET ${setting}', current_database());`).join(" ")} END $$`,
    );
    const url = t.testDb.url;
    const db = await openPostgres({ connectionString: url, vectorLayout: testVectorLayout() });
    walking = await createTestApp({
      env: { VECTOR_EXACT_ROWS: "0" },
      testDb: { db, url, close: () => db.close() },
    });
  }, 300_000);
  afterAll(async () => {
    if (walking !== t) await walking?.close();
    await t?.close();
  });

  async function search(body: Record<string, unknown>): Promise<{ id: string; similarity: number }[]> {
    const res = await walking.app.inject({
      method: "POST",
      url: "/search",
      headers: quiet.headers,
      payload: { mode: "vector", rank: ["similarity"], explain: true, ...body },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().hits.map((hit: { id: string; explain: { signals: { similarity: number } } }) => ({
      id: hit.id,
      similarity: hit.explain.signals.similarity,
    }));
  }

  /** The workspace's `k` records nearest to the word, by scoring every embedding. */
  async function exactNearest(k: number): Promise<string[]> {
    const params = new Params();
    const query = { space: LOCAL_SPACE, vector: localEmbedding(await wordVectors(), WORD) };
    const { rows } = await t.db.query<{ id: string }>(
      `SELECT r.id FROM records r JOIN embeddings e ON e.workspace_id = r.workspace_id AND e.record_id = r.id
         AND e.space = ${params.add(LOCAL_SPACE)}
       WHERE r.workspace_id = ${params.add(quiet.id)} AND r.ready
       ORDER BY ${similaritySql(t.db, params, query)} DESC NULLS LAST LIMIT ${k}`,
      params.values,
    );
    return rows.map((row) => row.id);
  }

  it("finds the records holding a rare query word that the index walk passes by, nearest first", async () => {
    const all = [...holding.values()].flat();
    expect(new Set(await exactNearest(4))).toEqual(new Set(all));
    const hits = await search({ q: WORD, k: 4 });
    expect(new Set(hits.map((hit) => hit.id))).toEqual(new Set(all));
    const similarities = hits.map((hit) => hit.similarity);
    expect(similarities).toEqual([...similarities].sort((a, b) => b - a));
  });

  it("keeps to the search's filters", async () => {
    const hits = await search({
      q: WORD,
      k: 2,
      scope: { collections: ["customer_events"] },
      where: { channel: { eq: "email" } },
    });
    expect(hits.map((hit) => hit.id).sort()).toEqual([...(holding.get("email") ?? [])].sort());
  });
});
