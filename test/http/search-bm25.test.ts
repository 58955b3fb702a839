// text_match is Okapi BM25 over the workspace's own statistics (CONVENTIONS.md "Relevance"),
// divided by the query's largest possible BM25: checked against a reference computed here
// (test/support/bm25-reference.ts) on small hand-made corpora. A quoted phrase is one term and
// outranks records sharing only the question's other words; equal scores come back newest seq
// first, the same on every search; a profile's `text_rank: ts_rank_cd` keeps the older rank.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.js";
import {
  BM25_DEFAULTS,
  type Bm25Params,
  bm25Ranking,
  bm25Scores,
  queryTerms,
  type RefDoc,
  type RefTerm,
  refDocs,
  tokenize,
} from "../support/bm25-reference.js";
import { COLLECTIONS_YAML, MINIMAL_PACKAGE, minimalFiles } from "../support/catalog-files.js";

interface Hit {
  id: string;
  rank: number;
  score: number;
  rank_score: number;
  explain?: { signals: { text_match: number | null } };
}

type Headers = { authorization: string };

/** The minimal catalog (notes: events, facts: keyed; no processors) with this profile text_rank. */
function catalog(textRank?: string): object {
  const profile = `search_profiles:
  - name: main
    engine: postgres
    embedding: embed
    text_config: english
${textRank ? `    text_rank: ${textRank}\n` : ""}`;
  return {
    package: MINIMAL_PACKAGE,
    files: minimalFiles({ "search_profiles/main.yaml": profile, "collections/main.yaml": COLLECTIONS_YAML }),
  };
}

const note = (text: string) => ({ collection: "notes", entity: "e", type: "note", text });

describe("text_match: Okapi BM25", () => {
  let t: TestApp;

  const space = async (name: string, textRank?: string) => {
    const ws = await t.workspace(name);
    const res = await t.publish(ws.headers, catalog(textRank));
    expect(res.statusCode, res.body).toBe(200);
    return ws;
  };
  /** Writes the texts as notes (one request), returns them with their ids. */
  const writeNotes = async (headers: Headers, texts: string[]) => {
    const ids = await t.writeRecords(headers, texts.map(note));
    return texts.map((text, i) => ({ id: ids[i] as string, text }));
  };
  const search = async (headers: Headers, body: object): Promise<Hit[]> => {
    const res = await t.app.inject({ method: "POST", url: "/search", headers, payload: body });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().hits;
  };
  /** Text mode ranked by text_match alone: rank_score is text_match. */
  const textMatch = (headers: Headers, q: string, extra: object = {}) =>
    search(headers, { mode: "text", q, k: 100, rank: ["text_match"], ...extra });

  /** The hits match the reference ranking: same records, same order, same values. */
  const expectReference = (hits: Hit[], population: RefDoc[], terms: RefTerm[], params?: Bm25Params) => {
    const expected = bm25Ranking(population, population, terms, { params });
    expect(hits.map((h) => h.id)).toEqual(expected.map((r) => r.id));
    hits.forEach((hit, i) => {
      expect(hit.rank_score, `hit ${i + 1}`).toBeCloseTo((expected[i] as { score: number }).score, 6);
    });
  };

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  describe("the reference computation", () => {
    it("agrees with values worked by hand", () => {
      const doc = (id: string, seq: number, words: string) => ({ id, seq, tokens: words.split(" ") });
      // N 2, avgdl 1.5. One term: its idf cancels, a record scores tf / (tf + k1 (1 - b + b |d| / avgdl)).
      const two = [doc("a", 1, "appl"), doc("b", 2, "appl pear")];
      const apple = bm25Scores(two, two, ["appl"]);
      expect(apple.get("a")).toBeCloseTo(1 / (1 + 1.2 * (0.25 + (0.75 * 1) / 1.5)), 12);
      expect(apple.get("b")).toBeCloseTo(1 / 2.5, 12);
      // Two terms: idf(pear) = ln 2 (df 1), idf(appl) = ln 1.2 (df 2).
      const both = bm25Scores(two, two, ["pear", "appl"]);
      const ceiling = (Math.log(2) + Math.log(1.2)) * 2.2;
      expect(both.get("b")).toBeCloseTo(((Math.log(2) + Math.log(1.2)) * (2.2 / 2.5)) / ceiling, 12);
      expect(both.get("a")).toBeCloseTo((Math.log(1.2) * (2.2 / 1.9)) / ceiling, 12);
      // A phrase is one term, counted where it starts; a gap matches any position.
      const phrase: RefTerm = ["masterpiec", null, "wheel"];
      const holder = { id: "p", seq: 3, tokens: ["masterpiec", null, "wheel", "masterpiec", "wheel"] };
      expect(bm25Scores([holder], [holder], [phrase]).get("p")).toBeGreaterThan(0);
      expect(bm25Ranking([holder], [holder], [phrase])).toHaveLength(1);
    });
  });

  describe("a hand-worked corpus", () => {
    let headers: Headers;
    let written: { id: string; text: string }[];
    let population: RefDoc[];
    // Every word is one lexeme of its own (checked below), so tf and |d| are plain counts.
    const TEXTS = [
      "dragon castle",
      "dragon dragon dragon river",
      "castle river forest knight lantern harbor meadow falcon",
      "river forest",
      "dragon knight",
      "copper velvet marble",
      "castle castle lantern",
    ];

    beforeAll(async () => {
      const ws = await space("bm25-hand");
      headers = ws.headers;
      written = await writeNotes(headers, TEXTS);
      population = await refDocs(t.db, written);
    });

    it("keeps each word of the corpus as one distinct lexeme", async () => {
      const tokens = await tokenize(t.db, TEXTS);
      tokens.forEach((lexemes, i) => {
        const words = (TEXTS[i] as string).split(" ");
        expect(lexemes).toHaveLength(words.length);
        expect(lexemes.every((l) => l !== null)).toBe(true);
      });
      const vocabulary = new Set(TEXTS.flatMap((text) => text.split(" ")));
      const lexemes = await tokenize(t.db, [...vocabulary]);
      expect(new Set(lexemes.map((l) => l[0])).size).toBe(vocabulary.size);
    });

    it("scores one word as worked by hand: tf > 1 and record length both count", async () => {
      // N 7, avgdl 24/7; one term: tf / (tf + 1.2 (0.25 + 0.75 |d| / avgdl)).
      const hits = await textMatch(headers, "dragon");
      const value = (i: number) => hits.find((h) => h.id === written[i]?.id)?.rank_score;
      expect(hits).toHaveLength(3);
      expect(value(1)).toBeCloseTo(3 / (3 + 1.2 * (0.25 + (0.75 * 4 * 7) / 24)), 6); // tf 3, |d| 4
      expect(value(0)).toBeCloseTo(1 / (1 + 1.2 * (0.25 + (0.75 * 2 * 7) / 24)), 6); // tf 1, |d| 2
      expect(value(4)).toBeCloseTo(1 / (1 + 1.2 * (0.25 + (0.75 * 2 * 7) / 24)), 6);
      // tf 3 first, then the two equal ones newest first.
      expect(hits.map((h) => h.id)).toEqual([written[1]?.id, written[4]?.id, written[0]?.id]);
      expectReference(hits, population, ["dragon"]);
    });

    it("scores a longer record lower for the same tf", async () => {
      const hits = await textMatch(headers, "knight");
      // "dragon knight" (|d| 2) above the eight-word record (|d| 8).
      expect(hits.map((h) => h.id)).toEqual([written[4]?.id, written[2]?.id]);
      expectReference(hits, population, ["knight"]);
    });

    it.each([
      ["dragon castle", ["dragon", "castl"]],
      ["river lantern knight", ["river", "lantern", "knight"]],
      ["castle forest falcon dragon", ["castl", "forest", "falcon", "dragon"]],
    ])("scores several words (%s) as the reference", async (q, terms) => {
      const hits = await textMatch(headers, q);
      expectReference(hits, population, terms);
      expect((await queryTerms(t.db, q)).terms).toEqual(terms);
    });

    it("counts a word absent from the corpus in the largest possible score (df 0)", async () => {
      const hits = await textMatch(headers, "dragon castle zebra");
      expectReference(hits, population, ["dragon", "castl", "zebra"]);
      // The ceiling grew by zebra's idf: every value is below the two words' own.
      const without = new Map((await textMatch(headers, "dragon castle")).map((h) => [h.id, h.rank_score]));
      for (const hit of hits) expect(hit.rank_score).toBeLessThan(without.get(hit.id) as number);
      // A query of absent words only finds nothing.
      expect(await textMatch(headers, "zebra unicorn")).toEqual([]);
    });

    it("counts a lexeme once however often the query says it; stop words are no terms", async () => {
      const once = await textMatch(headers, "castle");
      expectReference(once, population, ["castl"]);
      for (const q of ["castles castle", "the castle", "castle castle"]) {
        const hits = await textMatch(headers, q);
        expect(
          hits.map((h) => [h.id, h.rank_score]),
          q,
        ).toEqual(once.map((h) => [h.id, h.rank_score]));
      }
    });

    it("lies in [0, 1]: a record holding every query term, each many times, nears 1", async () => {
      const hits = await textMatch(headers, "dragon castle river forest knight lantern");
      for (const hit of hits) {
        expect(hit.rank_score).toBeGreaterThan(0);
        expect(hit.rank_score).toBeLessThanOrEqual(1);
      }
      expectReference(hits, population, ["dragon", "castl", "river", "forest", "knight", "lantern"]);
    });

    it("reports text_match among explain's signals, equal to rank_score, and keeps excluded words out", async () => {
      const hits = await textMatch(headers, "dragon castle", { explain: true });
      for (const hit of hits) expect(hit.explain?.signals.text_match).toBeCloseTo(hit.rank_score, 12);
      const excluded = await textMatch(headers, "dragon castle -knight");
      const expected = bm25Ranking(population, population, ["dragon", "castl"], { excluded: ["knight"] });
      expect(excluded.map((h) => h.id)).toEqual(expected.map((r) => r.id));
      excluded.forEach((hit, i) => {
        expect(hit.rank_score).toBeCloseTo(expected[i]?.score as number, 6);
      });
    });

    it("the default text formula orders by BM25 (normalized), the best record scoring 1", async () => {
      const hits = await search(headers, { mode: "text", q: "dragon castle", k: 100 });
      const expected = bm25Ranking(population, population, ["dragon", "castl"]);
      expect(hits.map((h) => h.id)).toEqual(expected.map((r) => r.id));
      expect(hits[0]?.score).toBe(1);
    });
  });

  describe("a quoted phrase", () => {
    let headers: Headers;
    let population: RefDoc[];
    let ids: Record<string, string>;
    const Q = 'What did Calvin recently get that is a "masterpiece on wheels"?';
    const THINGS = [
      "groceries",
      "tickets",
      "coffee",
      "a guitar",
      "lunch",
      "snacks",
      "fresh air",
      "a haircut",
    ];
    const TEXTS: Record<string, string> = {
      holder: "Calvin bought a vintage convertible, a masterpiece on wheels",
      twice: "that truck is a masterpiece on wheels, truly a masterpiece on wheels",
      // Both words, never as the phrase (adjacent is not "masterpiece <2> wheels").
      apart: "a masterpiece of painting beside the wheels of the bus",
      adjacent: "masterpiece wheels",
      // Many records share the question's other words: common, so their idf is low.
      ...Object.fromEntries(
        Array.from({ length: 30 }, (_, i) => [
          `calvin${i}`,
          `Calvin ${i % 3 === 0 ? "recently " : ""}wanted to get ${THINGS[i % THINGS.length]}${i % 4 === 0 ? " and get more" : ""}`,
        ]),
      ),
    };

    beforeAll(async () => {
      const ws = await space("bm25-phrase");
      headers = ws.headers;
      const names = Object.keys(TEXTS);
      const written = await writeNotes(
        headers,
        names.map((name) => TEXTS[name] as string),
      );
      ids = Object.fromEntries(names.map((name, i) => [name, written[i]?.id as string]));
      population = await refDocs(t.db, written);
    });

    it("is one term: the records holding it verbatim outrank those sharing only the other words", async () => {
      const { terms, excluded } = await queryTerms(t.db, Q);
      expect(terms).toEqual(["calvin", "recent", "get", ["masterpiec", null, "wheel"]]);
      expect(excluded).toEqual([]);
      const hits = await textMatch(headers, Q);
      expect(new Set(hits.slice(0, 2).map((h) => h.id))).toEqual(new Set([ids.holder, ids.twice]));
      // The words alone, never as the phrase, are no match at all.
      expect(hits.map((h) => h.id)).not.toContain(ids.apart);
      expect(hits.map((h) => h.id)).not.toContain(ids.adjacent);
      expectReference(hits, population, terms);
    });

    it("has the df of the records holding the phrase, and a tf of its occurrences", async () => {
      // Alone: the phrase's idf cancels, its tf (2 in `twice`) and the records' lengths decide.
      const hits = await textMatch(headers, '"masterpiece on wheels"');
      expect(hits.map((h) => h.id).sort()).toEqual([ids.holder, ids.twice].sort());
      expectReference(hits, population, [["masterpiec", null, "wheel"]]);
      // Beside another word its idf is weighed against that word's: df 2 (not the words' 4).
      const mixed = await textMatch(headers, 'get "masterpiece on wheels"');
      expectReference(mixed, population, ["get", ["masterpiec", null, "wheel"]]);
      const wordsDf = bm25Scores(population, population, ["get", "masterpiec", "wheel"]);
      const holder = mixed.find((h) => h.id === ids.holder)?.rank_score as number;
      expect(Math.abs(holder - (wordsDf.get(ids.holder as string) as number))).toBeGreaterThan(1e-3);
    });
  });

  describe("equal scores", () => {
    let headers: Headers;
    let population: RefDoc[];
    let twins: string[];

    beforeAll(async () => {
      const ws = await space("bm25-ties");
      headers = ws.headers;
      // Five identical records (two requests: two created_at values), among others holding the
      // word in other amounts; the twins score alike by any formula of tf and |d|.
      const first = await writeNotes(headers, [
        "orchid saffron",
        "orchid orchid cobalt",
        "orchid saffron",
        "ember tundra glacier orchid quartz walnut",
        "orchid saffron",
      ]);
      const second = await writeNotes(headers, [
        "orchid saffron",
        "cobalt ember",
        "orchid saffron",
        "orchid",
      ]);
      twins = [...first, ...second].filter((w) => w.text === "orchid saffron").map((w) => w.id);
      population = await refDocs(t.db, [...first, ...second]);
    });

    it("come back newest seq first, with exactly equal rank_score", async () => {
      const hits = await textMatch(headers, "orchid");
      expectReference(hits, population, ["orchid"]);
      const tied = hits.filter((h) => twins.includes(h.id));
      expect(tied.map((h) => h.id)).toEqual([...twins].reverse());
      expect(new Set(tied.map((h) => h.rank_score)).size).toBe(1);
      // The twins are adjacent in the ranking.
      const first = hits.findIndex((h) => twins.includes(h.id));
      expect(hits.slice(first, first + twins.length).map((h) => h.id)).toEqual([...twins].reverse());
    });

    it("keep their order over repeated searches with the default formula (access recency)", async () => {
      for (const k of [100, 2, 3]) {
        const body = { mode: "text", q: "orchid saffron", k };
        const once = (await search(headers, body)).map((h) => h.id);
        const again = (await search(headers, body)).map((h) => h.id);
        const third = (await search(headers, body)).map((h) => h.id);
        expect(again, `k ${k}`).toEqual(once);
        expect(third, `k ${k}`).toEqual(once);
        const expected = bm25Ranking(population, population, ["orchid", "saffron"], { k });
        expect(once, `k ${k}`).toEqual(expected.map((r) => r.id));
      }
      // Twins lead "orchid saffron": the newest come first on every search.
      const top = (await search(headers, { mode: "text", q: "orchid saffron", k: 2 })).map((h) => h.id);
      expect(top).toEqual([...twins].reverse().slice(0, 2));
    });
  });

  describe("the profile's text_rank", () => {
    const TEXTS = [
      "dragon castle",
      "dragon dragon dragon river",
      "castle river forest knight lantern harbor meadow falcon",
      "river forest dragon castle castle",
      "knight lantern",
    ];
    const Q = "dragon castle";
    /** Occurrences of the query's words (ts_rank_cd: 0.1 each, plain text, weight D). */
    const occurrencesOf = (text: string) =>
      text.split(" ").filter((w) => w === "dragon" || w === "castle").length;

    it("ts_rank_cd gives the older rank, bm25 (default or explicit) the BM25 values, on the same records", async () => {
      const profiles: [string, string | undefined, Bm25Params | undefined][] = [
        ["bm25-default", undefined, BM25_DEFAULTS],
        ["bm25-named", "bm25", BM25_DEFAULTS],
        ["bm25-tuned", "{ kind: bm25, k1: 2, b: 0.5 }", { k1: 2, b: 0.5 }],
        ["bm25-flat", "{ kind: bm25, k1: 0.9, b: 0 }", { k1: 0.9, b: 0 }],
        ["rank-cd", "ts_rank_cd", undefined],
        ["rank-cd-mapping", "{ kind: ts_rank_cd }", undefined],
      ];
      const seen = new Map<string, Map<number, number>>();
      for (const [name, textRank, params] of profiles) {
        const ws = await space(`profile-${name}`, textRank);
        const written = await writeNotes(ws.headers, TEXTS);
        const hits = await textMatch(ws.headers, Q);
        const byText = new Map(hits.map((h) => [written.findIndex((w) => w.id === h.id), h.rank_score]));
        seen.set(name, byText);
        if (params) {
          const population = await refDocs(t.db, written);
          expectReference(hits, population, ["dragon", "castl"], params);
        } else {
          // 0.1 per occurrence; most occurrences first, newest first among equals.
          const expected = written
            .map((w, seq) => ({ id: w.id, seq, n: occurrencesOf(w.text) }))
            .filter((x) => x.n > 0)
            .sort((a, b) => b.n - a.n || b.seq - a.seq);
          expect(
            hits.map((h) => h.id),
            name,
          ).toEqual(expected.map((x) => x.id));
          hits.forEach((hit, i) => {
            expect(hit.rank_score).toBeCloseTo(0.1 * (expected[i]?.n as number), 6);
          });
        }
      }
      // The same records rank differently: BM25 puts the short tf-3 record above the tf-3 long one.
      const cd = seen.get("rank-cd") as Map<number, number>;
      const bm = seen.get("bm25-default") as Map<number, number>;
      expect(cd.get(1)).toBeCloseTo(0.3, 6);
      expect(cd.get(3)).toBeCloseTo(0.3, 6);
      expect(bm.get(1)).not.toBeCloseTo(bm.get(3) as number, 3);
      expect(seen.get("bm25-named")).toEqual(bm);
      expect(seen.get("bm25-tuned")).not.toEqual(bm);
    });
  });
});
