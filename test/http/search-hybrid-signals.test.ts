// Hybrid candidates carry both signals whichever proposal list found them: the lists are read
// only as deep as their round robin goes (src/search/candidates.ts), so with a pool of 3 each
// list gives its best record, and each must come with the signal its own list does not rank by.
// Older records that match no word and sit further from the query's vector are in no list's
// lead, so the pool of 3 leaves them out (an entity's three lists are one statement).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.js";
import { enrichAll } from "../support/worker.js";

describe("hybrid signals", () => {
  let t: TestApp;
  let headers: { authorization: string };
  const ids: Record<string, string> = {};
  const q = "quokka zephyr";

  beforeAll(async () => {
    t = await createTestApp();
    const ws = await t.workspace("hybrid-signals");
    headers = ws.headers;
    await t.publishExample(headers);
    const rows = {
      // The query's own words: the nearest vector, one occurrence of each word.
      nearest: { text: "quokka zephyr", occurred_at: "2026-02-01T00:00:00Z" },
      // The words repeated: the best text match, further from the query's vector.
      wordy: {
        text: "quokka quokka quokka quokka zephyr zephyr zephyr marmot",
        occurred_at: "2026-02-02T00:00:00Z",
      },
      // The newest record, matching one word once.
      newest: { text: "zephyr lantern", occurred_at: "2026-03-01T00:00:00Z" },
    };
    for (const [name, row] of Object.entries(rows)) {
      const res = await t.app.inject({
        method: "POST",
        url: "/records",
        headers,
        payload: { records: [{ collection: "customer_events", entity: "sig", type: "note", ...row }] },
      });
      expect(res.statusCode, res.body).toBe(200);
      ids[name] = res.json().inserted[0].id;
    }
    const fillers = [1, 2, 3].map((n) => ({
      collection: "customer_events",
      entity: "sig",
      type: "note",
      text: `ordinary filler entry number ${n}`,
      occurred_at: `2025-01-0${n}T00:00:00Z`,
    }));
    const res = await t.app.inject({
      method: "POST",
      url: "/records",
      headers,
      payload: { records: fillers },
    });
    expect(res.statusCode, res.body).toBe(200);
    await enrichAll(t.db, ws.id);
  });
  afterAll(() => t.close());

  const values = async (body: object) => {
    const res = await t.app.inject({
      method: "POST",
      url: "/search",
      headers,
      payload: { q, k: 20, ...body },
    });
    expect(res.statusCode, res.body).toBe(200);
    return new Map<string, number>(res.json().hits.map((h: any) => [h.id, h.rank_score]));
  };

  for (const scope of [{ collections: ["customer_events"] }, { entities: ["sig"] }]) {
    it(`matches each mode's own signal (scope ${Object.keys(scope)[0]})`, async () => {
      const similarity = await values({ mode: "vector", scope, rank: ["similarity"] });
      const textMatch = await values({ mode: "text", scope, rank: ["text_match"] });
      // The three lists' best records differ, so the pool of 3 takes one from each.
      expect([...similarity.keys()][0]).toBe(ids.nearest);
      expect([...textMatch.keys()][0]).toBe(ids.wordy);
      const recent = await values({ mode: "recent", scope });
      expect([...recent.keys()][0]).toBe(ids.newest as string);
      const pool = { scope, params: { candidates: 3 } };
      const hybridSimilarity = await values({ mode: "hybrid", ...pool, rank: ["similarity"] });
      const hybridText = await values({ mode: "hybrid", ...pool, rank: ["text_match"] });
      expect(new Set(hybridSimilarity.keys())).toEqual(new Set(Object.values(ids)));
      for (const [id, value] of hybridSimilarity) expect(value).toBeCloseTo(similarity.get(id) as number, 6);
      for (const [id, value] of hybridText) expect(value).toBeCloseTo(textMatch.get(id) as number, 6);
      expect(hybridText.get(ids.newest as string)).toBeGreaterThan(0);
    });
  }
});
