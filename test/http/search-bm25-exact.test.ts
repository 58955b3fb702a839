// Whatever proposes a text search's candidates (tiers, levels, scoring every match), its top k
// is the top k of brute-force BM25 over every matching record of the scope (issue 53): a seeded
// random corpus of a few hundred records over a Zipf-like vocabulary of 50 words (a few very
// common, most rare), lengths 1 to 40, events and keyed facts (superseded and retracted ones
// among them), searched with many seeded queries of 1 to 4 words (quoted phrases and excluded
// words among them), scoped and filtered, at k 10 and 20: in text mode (with the default pool and
// a pool of exactly k), for hybrid's text signal, and for an rrf source of mode text. Ranked by
// text_match alone, so the order is BM25's (newest seq first among equal scores).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requireCatalog } from "../../src/catalog/index.js";
import { termRank, textRanker } from "../../src/search/bm25.js";
import { textTerms } from "../../src/search/sql.js";
import { createTestApp, type TestApp } from "../support/app.js";
import {
  bm25Ranking,
  queryTerms,
  type Ranked,
  type RefDoc,
  rankingMismatch,
  refDocs,
  tokenize,
} from "../support/bm25-reference.js";
import { MINIMAL_PACKAGE, MODELS_YAML } from "../support/catalog-files.js";
import { enrichAll } from "../support/worker.js";

const VOCABULARY = (
  "dragon castle river forest knight lantern harbor meadow falcon copper velvet marble quartz walnut " +
  "tundra glacier orchid saffron cobalt ember canyon prairie thunder willow beacon anchor compass lagoon " +
  "summit valley pebble harvest orchard violin trumpet ginger pepper cedar maple birch crystal granite " +
  "basalt comet nebula galaxy meteor spiral ribbon parrot"
).split(" ");
const TOPICS = ["alpha", "beta", "gamma", "delta"];
const RECORDS = 420;

const FILES: Record<string, string> = {
  "conf/models.yaml": MODELS_YAML,
  "search_profiles/main.yaml": `search_profiles:
  - { name: main, engine: postgres, embedding: embed, text_config: english }
`,
  "collections/main.yaml": `collections:
  - name: notes
    version: 1
    active: true
    mode: event
    schema:
      type: object
      properties: { topic: { type: string } }
      additionalProperties: false
    fields:
      topic: { path: topic, type: string, filter: true, return: true }
    required_processors: [embedder]
    search_profile: main
  - name: facts
    version: 1
    active: true
    mode: keyed
    schema: { type: object }
    required_processors: [embedder]
    search_profile: main
`,
  "processors/main.yaml": `processors:
  - { name: embedder, kind: embedding, input: { collections: [notes, facts] }, model: embed }
`,
  "packages/demo-pack.yaml": `name: demo-pack
version: 1.0.0
collections: [notes@1, facts@1]
processors: [embedder]
search_profiles: [main]
`,
};

/** A seeded generator (mulberry32): the same corpus and queries on every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/** A word drawn with probability proportional to 1 / rank^1.1 (rank 1: the first word). */
function zipf(rand: () => number): string {
  const weights = VOCABULARY.map((_, i) => 1 / (i + 1) ** 1.1);
  const total = weights.reduce((s, w) => s + w, 0);
  let x = rand() * total;
  for (let i = 0; i < weights.length; i++) {
    x -= weights[i] as number;
    if (x <= 0) return VOCABULARY[i] as string;
  }
  return VOCABULARY.at(-1) as string;
}

interface Row {
  collection: "notes" | "facts";
  entity: string;
  type: string;
  text: string;
  key?: string;
  tombstone?: boolean;
  content: Record<string, string>;
}

/** The corpus in write order: two thirds events, a third keyed facts over 24 slots. */
function corpus(): Row[] {
  const rand = random(53);
  return Array.from({ length: RECORDS }, (): Row => {
    const length = 1 + Math.floor(rand() * 40);
    const text = Array.from({ length }, () => zipf(rand)).join(" ");
    if (rand() < 2 / 3) {
      const topic = TOPICS[Math.floor(rand() * TOPICS.length)] as string;
      return {
        collection: "notes",
        entity: `e${Math.floor(rand() * 5)}`,
        type: "note",
        text,
        content: { topic },
      };
    }
    const entity = `f${Math.floor(rand() * 6)}`;
    const key = `k${Math.floor(rand() * 4)}`;
    if (rand() < 0.1)
      return { collection: "facts", entity, key, type: "fact", text: "", tombstone: true, content: {} };
    return { collection: "facts", entity, key, type: "fact", text, content: {} };
  });
}

interface Scope {
  name: string;
  body: { scope: object; where?: object };
  holds(row: Row): boolean;
}

const SCOPES: Scope[] = [
  { name: "everything", body: { scope: { collections: ["notes", "facts"] } }, holds: () => true },
  { name: "facts", body: { scope: { collections: ["facts"] } }, holds: (r) => r.collection === "facts" },
  {
    name: "notes about alpha",
    body: { scope: { collections: ["notes"] }, where: { topic: { eq: "alpha" } } },
    holds: (r) => r.collection === "notes" && r.content.topic === "alpha",
  },
  {
    name: "entities e1 e3 and f2",
    body: { scope: { collections: ["notes", "facts"], entities: ["e1", "e3", "f2"] } },
    holds: (r) => ["e1", "e3", "f2"].includes(r.entity),
  },
  {
    name: "notes of topics beta gamma",
    body: { scope: { collections: ["notes"] }, where: { topic: { in: ["beta", "gamma"] } } },
    holds: (r) => r.collection === "notes" && ["beta", "gamma"].includes(r.content.topic as string),
  },
];

/** The seeded queries: fixed ones (only common words, rare words, phrases, exclusions), then random ones. */
function queries(): string[] {
  const rand = random(5353);
  const w = (i: number) => VOCABULARY[i] as string;
  const fixed = [
    w(0),
    `${w(0)} ${w(1)}`,
    `${w(0)} ${w(1)} ${w(2)}`,
    `${w(1)} ${w(2)} ${w(3)} ${w(4)}`,
    w(49),
    `${w(45)} ${w(48)}`,
    `${w(0)} ${w(47)}`,
    `"${w(0)} ${w(1)}"`,
    `${w(2)} "${w(1)} ${w(0)}"`,
    `${w(0)} -${w(1)}`,
    `${w(1)} ${w(3)} -${w(0)}`,
    `${w(0)} ${w(2)} zanzibar`,
  ];
  const random_ = Array.from({ length: 28 }, () => {
    const n = 1 + Math.floor(rand() * 4);
    const words = new Set<string>();
    // Half the words Zipf-drawn (mostly common), half uniform (mostly rare).
    while (words.size < n)
      words.add(rand() < 0.5 ? zipf(rand) : (VOCABULARY[Math.floor(rand() * 50)] as string));
    return [...words].join(" ");
  });
  return [...new Set([...fixed, ...random_])];
}

interface Hit {
  id: string;
  rank_score: number;
  source_ranks?: Record<string, number>;
}

describe("text search top k equals brute-force BM25", () => {
  let t: TestApp;
  let headers: { authorization: string };
  let workspaceId: string;
  let rows: (Row & { id: string })[];
  /** The searchable records: every event, each slot's head unless retracted. */
  let population: RefDoc[];
  let rowOf: Map<string, Row>;

  const search = async (body: object): Promise<Hit[]> => {
    const res = await t.app.inject({ method: "POST", url: "/search", headers, payload: body });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().hits;
  };

  beforeAll(async () => {
    t = await createTestApp();
    const ws = await t.workspace("bm25-exact");
    headers = ws.headers;
    workspaceId = ws.id;
    const res = await t.publish(headers, { package: MINIMAL_PACKAGE, files: FILES });
    expect(res.statusCode, res.body).toBe(200);
    const plan = corpus();
    rows = [];
    // Four requests, so keyed successors also arrive in later transactions.
    for (let at = 0; at < plan.length; at += 105) {
      const part = plan.slice(at, at + 105);
      const ids = await t.writeRecords(headers, part);
      rows.push(...part.map((row, i) => ({ ...row, id: ids[i] as string })));
    }
    await enrichAll(t.db, ws.id);
    const heads = new Map<string, Row & { id: string }>();
    for (const row of rows) if (row.key) heads.set(`${row.entity}/${row.key}`, row);
    const searchable = rows.filter(
      (row) =>
        row.collection === "notes" || (heads.get(`${row.entity}/${row.key}`) === row && !row.tombstone),
    );
    population = await refDocs(t.db, searchable);
    rowOf = new Map(rows.map((row) => [row.id, row]));
  }, 300_000);
  afterAll(async () => {
    await t?.close();
  });

  it("has a corpus of plain words, each its own lexeme, common and rare, keyed and not", async () => {
    const lexemes = await tokenize(t.db, VOCABULARY);
    expect(lexemes.every((l) => l.length === 1 && l[0] !== null)).toBe(true);
    expect(new Set(lexemes.map((l) => l[0])).size).toBe(VOCABULARY.length);
    const df = (word: string) =>
      population.filter((doc) =>
        doc.tokens.includes((lexemes[VOCABULARY.indexOf(word)] as string[])[0] as string),
      ).length;
    expect(df(VOCABULARY[0] as string)).toBeGreaterThan(population.length / 2);
    expect(df(VOCABULARY[49] as string)).toBeLessThan(population.length / 5);
    expect(population.length).toBeGreaterThan(300);
    const facts = rows.filter((r) => r.collection === "facts");
    expect(facts.length).toBeGreaterThan(
      population.filter((d) => rowOf.get(d.id)?.collection === "facts").length,
    );
    expect(facts.some((r) => r.tombstone)).toBe(true);
  });

  it("gives each wanted term of a query, cut from the query's ranker, the ranker the term has alone", async () => {
    const catalog = await requireCatalog(t.db, workspaceId);
    const profile = catalog.index.searchProfiles.get("main")?.def;
    let cut = 0;
    for (const q of queries()) {
      const terms = textTerms(q);
      const whole = await textRanker(t.db, { workspaceId, catalog, profile, terms });
      if (whole.kind !== "bm25") throw new Error("the profile ranks by BM25");
      const wanted = terms.filter((term) => !term.negate);
      expect(whole.byTerm, q).toHaveLength(wanted.length);
      for (const [i, term] of wanted.entries()) {
        const alone = await textRanker(t.db, { workspaceId, catalog, profile, terms: [term] });
        expect(termRank(whole, i), `${q}: ${term.text}`).toEqual(alone);
        cut++;
      }
    }
    expect(cut).toBeGreaterThan(40);
  });

  /** The reference ranking of q over a scope (whole: uncut). */
  const reference = async (q: string, scope: Scope): Promise<Ranked[]> => {
    const { terms, excluded } = await queryTerms(t.db, q);
    const candidates = population.filter((doc) => scope.holds(rowOf.get(doc.id) as Row));
    return bm25Ranking(population, candidates, terms, { excluded });
  };
  const expectTopK = (label: string, got: Hit[], expected: Ranked[], k: number) => {
    const ids = got.map((h) => h.id);
    const mismatch = rankingMismatch(ids, expected, k);
    expect(mismatch, `${label}\n${mismatch}`).toBeUndefined();
    const byId = new Map(expected.map((r) => [r.id, r.score]));
    got.forEach((hit, i) => {
      expect(hit.rank_score, `${label}: hit ${i + 1}`).toBeCloseTo(byId.get(hit.id) ?? Number.NaN, 6);
    });
  };

  const cases = queries().map((q, i) => {
    const scope = SCOPES[i % SCOPES.length] as Scope;
    return [q, scope.name, scope] as const;
  });

  it.each(cases)("text mode: %s (%s)", async (q, _name, scope) => {
    const expected = await reference(q, scope);
    for (const k of [10, 20]) {
      const body = { mode: "text", q, k, rank: ["text_match"], ...scope.body };
      expectTopK(`${q} / ${scope.name} / k ${k}`, await search(body), expected, k);
      // A pool of exactly k: whatever proposes the candidates must still find the best k.
      const small = { ...body, params: { candidates: k } };
      expectTopK(`${q} / ${scope.name} / k ${k} / pool ${k}`, await search(small), expected, k);
    }
  });

  it.each(cases)("hybrid's text signal: %s (%s)", async (q, _name, scope) => {
    const expected = await reference(q, scope);
    for (const k of [10, 20]) {
      const hits = await search({ mode: "hybrid", q, k, rank: ["text_match"], ...scope.body });
      // Records no word matched (proposed by the vector and recency lists) score 0 and come after.
      const matched = Math.min(k, expected.length);
      expectTopK(`hybrid ${q} / ${scope.name} / k ${k}`, hits.slice(0, matched), expected, matched);
      for (const hit of hits.slice(matched)) expect(hit.rank_score).toBe(0);
    }
  });

  it.each(cases)("rrf source of mode text: %s (%s)", async (q, _name, scope) => {
    const expected = await reference(q, scope);
    for (const k of [10, 20]) {
      const source = { name: "words", mode: "text", rank: ["text_match"], k, ...scope.body };
      const hits = await search({ q, k, sources: [source], fuse: { kind: "rrf" } });
      const mismatch = rankingMismatch(
        hits.map((h) => h.id),
        expected,
        k,
      );
      expect(mismatch, `rrf ${q} / ${scope.name} / k ${k}\n${mismatch}`).toBeUndefined();
      hits.forEach((hit, i) => {
        expect(hit.source_ranks).toEqual({ words: i + 1 });
      });
      // Beside a recency source, each hit's text rank is its place in the reference.
      const recent = { name: "newest", mode: "recent", k, ...scope.body };
      const fused = await search({ q, k: 2 * k, sources: [source, recent], fuse: { kind: "rrf" } });
      const places = fused
        .filter((h) => h.source_ranks?.words !== undefined)
        .sort((a, b) => (a.source_ranks?.words as number) - (b.source_ranks?.words as number))
        .map((h) => h.id);
      expect(
        rankingMismatch(places, expected, k),
        `rrf + recent ${q} / ${scope.name} / k ${k}`,
      ).toBeUndefined();
    }
  });
});
