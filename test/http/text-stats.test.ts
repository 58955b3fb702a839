// BM25's statistics (N, df, avgdl) are each workspace's own, per text configuration, and cover
// exactly its searchable records (CONVENTIONS.md "Relevance"): ready, not retracted, current
// (unkeyed, or the head of its keyed slot). Nothing another workspace or another configuration
// holds moves a score; a superseded version, a retraction, an erased record and a record still
// awaiting enrichment leave the statistics; an erasure that makes an older version current again
// brings that version back. Every check compares text_match with the reference computed over the
// records the test knows to be searchable (test/support/bm25-reference.ts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.js";
import { bm25Ranking, type RefDoc, type RefTerm, refDocs } from "../support/bm25-reference.js";
import { MINIMAL_PACKAGE, MODELS_YAML } from "../support/catalog-files.js";
import { enrichAll } from "../support/worker.js";

type Headers = { authorization: string };

interface Hit {
  id: string;
  rank_score: number;
}

/** Searchable at once: notes (events), facts (keyed); after enrichment: slow, slow_facts; plain: 'simple'. */
const FILES: Record<string, string> = {
  "conf/models.yaml": MODELS_YAML,
  "search_profiles/main.yaml": `search_profiles:
  - name: main
    engine: postgres
    embedding: embed
    text_config: english
  - name: plain
    engine: postgres
    text_config: simple
`,
  "collections/main.yaml": `collections:
  - { name: notes, version: 1, active: true, mode: event, schema: { type: object }, search_profile: main }
  - { name: facts, version: 1, active: true, mode: keyed, schema: { type: object }, search_profile: main }
  - name: slow
    version: 1
    active: true
    mode: event
    schema: { type: object }
    required_processors: [embedder]
    search_profile: main
  - name: slow_facts
    version: 1
    active: true
    mode: keyed
    schema: { type: object }
    required_processors: [embedder]
    search_profile: main
  - { name: plain_notes, version: 1, active: true, mode: event, schema: { type: object }, search_profile: plain }
`,
  "processors/main.yaml": `processors:
  - { name: embedder, kind: embedding, input: { collections: [slow, slow_facts] }, model: embed }
`,
  "packages/demo-pack.yaml": `name: demo-pack
version: 1.0.0
collections: [notes@1, facts@1, slow@1, slow_facts@1, plain_notes@1]
processors: [embedder]
search_profiles: [main, plain]
`,
};

const MAIN = ["notes", "facts", "slow", "slow_facts"];

interface Row {
  collection: string;
  entity: string;
  text: string;
  key?: string;
  tombstone?: boolean;
}

const note = (text: string, entity = "e"): Row => ({ collection: "notes", entity, text });
const fact = (entity: string, key: string, text: string, collection = "facts"): Row => ({
  collection,
  entity,
  key,
  text,
});

describe("BM25 statistics per workspace", () => {
  let t: TestApp;

  interface Space {
    id: string;
    headers: Headers;
    /** Writes rows (one request), returns them with their ids. */
    write(rows: Row[]): Promise<(Row & { id: string })[]>;
    /** text_match of a text search ranked by it alone over these collections, by record id. */
    scores(q: string, collections?: string[]): Promise<Map<string, number>>;
    /** The search equals the reference over `searchable` (the scope's records among them ranked). */
    expectReference(
      q: string,
      terms: RefTerm[],
      searchable: Written[],
      options?: ExpectOptions,
    ): Promise<void>;
  }
  type Written = Row & { id: string };
  interface ExpectOptions {
    collections?: string[];
    config?: string;
  }

  const space = async (name: string): Promise<Space> => {
    const ws = await t.workspace(name);
    const res = await t.publish(ws.headers, { package: MINIMAL_PACKAGE, files: FILES });
    expect(res.statusCode, res.body).toBe(200);
    const headers = ws.headers;
    const search = async (q: string, collections: string[]) => {
      const res = await t.app.inject({
        method: "POST",
        url: "/search",
        headers,
        payload: { mode: "text", q, k: 100, scope: { collections }, rank: ["text_match"] },
      });
      expect(res.statusCode, res.body).toBe(200);
      return res.json().hits as Hit[];
    };
    return {
      id: ws.id,
      headers,
      async write(rows) {
        const ids = await t.writeRecords(
          headers,
          rows.map((row) => ({
            type: "note",
            content: {},
            ...row,
          })),
        );
        return rows.map((row, i) => ({ ...row, id: ids[i] as string }));
      },
      async scores(q, collections = MAIN) {
        return new Map((await search(q, collections)).map((h) => [h.id, h.rank_score]));
      },
      async expectReference(q, terms, searchable, options = {}) {
        const collections = options.collections ?? MAIN;
        const population: RefDoc[] = await refDocs(t.db, searchable, options.config);
        const inScope = new Set(
          searchable.filter((r) => collections.includes(r.collection)).map((r) => r.id),
        );
        // The first 100 (k's bound) of the scope's matching records.
        const expected = bm25Ranking(
          population,
          population.filter((doc) => inScope.has(doc.id)),
          terms,
          { k: 100 },
        );
        const hits = await search(q, collections);
        expect(
          hits.map((h) => h.id),
          q,
        ).toEqual(expected.map((r) => r.id));
        hits.forEach((hit, i) => {
          expect(hit.rank_score, `${q}: hit ${i + 1}`).toBeCloseTo(expected[i]?.score as number, 6);
        });
      },
    };
  };

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  describe("another workspace", () => {
    let a: Space;
    let b: Space;
    let aRows: Written[];
    const QUERIES: [string, RefTerm[]][] = [
      ["dragon", ["dragon"]],
      ["dragon castle", ["dragon", "castl"]],
      ["castle river knight", ["castl", "river", "knight"]],
    ];

    beforeAll(async () => {
      a = await space("stats-a");
      b = await space("stats-b");
      aRows = await a.write([
        note("dragon castle"),
        note("dragon dragon river"),
        note("castle river forest knight lantern"),
        note("knight lantern harbor"),
        note("river meadow"),
        fact("s", "k", "dragon knight castle"),
      ]);
    });

    it("moves none of a workspace's scores, however much of the query's words it holds", async () => {
      const before = new Map<string, Map<string, number>>();
      for (const [q, terms] of QUERIES) {
        await a.expectReference(q, terms, aRows);
        before.set(q, await a.scores(q));
      }
      // A flood of the query's words in B: 200 records, dragon in every one.
      const flood = await b.write(
        Array.from({ length: 200 }, (_, i) =>
          note(
            `dragon ${i % 2 === 0 ? "castle " : ""}${"dragon ".repeat(i % 5)}river${i % 7 === 0 ? " knight" : ""}`,
          ),
        ),
      );
      await enrichAll(t.db, b.id);
      for (const [q, terms] of QUERIES) {
        expect(await a.scores(q), q).toEqual(before.get(q));
        // B ranks by its own statistics.
        await b.expectReference(q, terms, flood);
      }
    });

    it("moves none of them from another text configuration of the same workspace", async () => {
      const before = await a.scores("dragon castle");
      const plain = await a.write(
        Array.from({ length: 120 }, (_, i) => ({
          collection: "plain_notes",
          entity: "p",
          text: `dragon castle ${"dragon ".repeat(i % 3)}`,
        })),
      );
      expect(await a.scores("dragon castle")).toEqual(before);
      await a.expectReference("dragon castle", ["dragon", "castl"], aRows);
      // The simple configuration keeps its own: "castle" is not stemmed there.
      await a.expectReference("dragon castle", ["dragon", "castle"], plain, {
        collections: ["plain_notes"],
        config: "simple",
      });
    });

    it("moves them when the workspace itself gains the words (the check can fail)", async () => {
      const before = await a.scores("dragon castle");
      const more = await a.write(
        Array.from({ length: 40 }, (_, i) => note(`dragon ${i % 4 === 0 ? "castle" : "meadow"}`)),
      );
      aRows = [...aRows, ...more];
      const after = await a.scores("dragon castle");
      for (const [id, value] of before) expect(after.get(id), id).not.toBeCloseTo(value, 6);
      for (const [q, terms] of QUERIES) await a.expectReference(q, terms, aRows);
    });
  });

  describe("supersession and retraction", () => {
    let s: Space;
    let searchable: Written[];
    const QUERIES: [string, RefTerm[]][] = [
      ["dragon", ["dragon"]],
      ["dragon castle forest", ["dragon", "castl", "forest"]],
      ["knight", ["knight"]],
    ];
    const check = async () => {
      for (const [q, terms] of QUERIES) await s.expectReference(q, terms, searchable);
    };

    beforeAll(async () => {
      s = await space("stats-keyed");
      searchable = await s.write([
        note("dragon castle"),
        note("castle forest river"),
        note("knight river"),
        fact("s1", "k1", "dragon dragon dragon castle river"),
        fact("s1", "k2", "dragon knight"),
        fact("s2", "k1", "dragon"),
      ]);
    });

    it("counts every current version at first", check);

    it("drops a superseded version's words: only the slot's head counts", async () => {
      const [v2] = await s.write([fact("s1", "k1", "castle forest")]);
      const [w2] = await s.write([fact("s1", "k2", "dragon knight knight")]);
      searchable = [
        ...searchable.filter((r) => !(r.entity === "s1" && (r.key === "k1" || r.key === "k2"))),
        v2 as Written,
        w2 as Written,
      ];
      await check();
    });

    it("drops a retracted slot (a tombstone is no searchable record)", async () => {
      await s.write([{ ...fact("s2", "k1", ""), tombstone: true }]);
      searchable = searchable.filter((r) => !(r.entity === "s2" && r.key === "k1"));
      await check();
    });

    it("counts a slot written again after its retraction", async () => {
      const [again] = await s.write([fact("s2", "k1", "dragon forest forest")]);
      searchable = [...searchable, again as Written];
      await check();
    });
  });

  describe("erasure", () => {
    let s: Space;
    let searchable: Written[];
    let head: Written;
    let older: Written;
    const QUERIES: [string, RefTerm[]][] = [
      ["dragon", ["dragon"]],
      ["dragon castle knight", ["dragon", "castl", "knight"]],
    ];
    const check = async () => {
      for (const [q, terms] of QUERIES) await s.expectReference(q, terms, searchable);
    };
    const erase = async (body: object) => {
      const res = await t.app.inject({ method: "POST", url: "/erase", headers: s.headers, payload: body });
      expect(res.statusCode, res.body).toBe(200);
      return res.json();
    };

    beforeAll(async () => {
      s = await space("stats-erasure");
      const kept = await s.write([
        note("dragon castle", "keep"),
        note("knight castle castle river", "keep"),
        note("river forest", "keep"),
      ]);
      const gone = await s.write([
        note("dragon dragon dragon dragon", "gone"),
        note("dragon knight knight lantern", "gone"),
        fact("gone", "k", "dragon castle castle castle"),
      ]);
      [older] = (await s.write([fact("keep", "plan", "dragon dragon knight lantern harbor")])) as [Written];
      [head] = (await s.write([fact("keep", "plan", "castle")])) as [Written];
      searchable = [...kept, ...gone, head];
    });

    it("counts every searchable record before", check);

    it("removes an erased entity's records from the statistics", async () => {
      const res = await erase({ entity: "gone" });
      expect(res.deleted).toBe(3);
      searchable = searchable.filter((r) => r.entity !== "gone");
      await check();
    });

    it("brings back the older version an erased head makes current again", async () => {
      await erase({ records: [head.id] });
      searchable = [...searchable.filter((r) => r.id !== head.id), older];
      await check();
    });
  });

  describe("records awaiting enrichment", () => {
    let s: Space;
    let searchable: Written[];
    const QUERIES: [string, RefTerm[]][] = [
      ["dragon", ["dragon"]],
      ["dragon castle knight", ["dragon", "castl", "knight"]],
    ];
    const check = async () => {
      for (const [q, terms] of QUERIES) await s.expectReference(q, terms, searchable);
    };

    beforeAll(async () => {
      s = await space("stats-enrichment");
      searchable = await s.write([note("dragon castle"), note("knight river"), note("castle forest")]);
      const ready = await s.write([fact("f", "k", "dragon dragon castle", "slow_facts")]);
      await enrichAll(t.db, s.id);
      searchable = [...searchable, ...ready];
    });

    it("counts an enriched record once it is ready", check);

    it("leaves out records not ready yet, and the version an unready head supersedes", async () => {
      const pending = await s.write([
        { collection: "slow", entity: "e", text: "dragon dragon dragon knight" },
        { collection: "slow", entity: "e", text: "dragon lantern" },
        fact("f", "k", "knight knight castle", "slow_facts"),
      ]);
      // Current-ness comes before readiness: the slot's ready version is no longer current and
      // its unready successor not yet searchable, so neither counts; nor do the unready events.
      searchable = searchable.filter((r) => r.collection !== "slow_facts");
      await check();
      // Once enriched, all three count.
      await enrichAll(t.db, s.id);
      searchable = [...searchable, ...pending];
      await check();
    });
  });
});
