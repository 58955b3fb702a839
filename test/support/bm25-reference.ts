// A brute-force Okapi BM25 to check text_match against (CONVENTIONS.md "Relevance"): for the
// query's distinct terms t, idf(t) = ln(1 + (N - df + 0.5) / (df + 0.5)), and a record scores
//   sum_t idf(t) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * |d| / avgdl))
// divided by sum_t idf(t) * (k1 + 1), so that it lies in [0, 1]. N, df and avgdl are over the
// records given as the statistics' population (the workspace's searchable records); tf is a
// term's occurrences in a record, |d| the record's lexeme occurrences. A quoted phrase is one
// term: its tf the phrase's occurrences, its df the records holding it. Ties: newest seq first.
//
// The pure part (bm25Scores, bm25Ranking) works on records given as lexemes by position; the
// helpers at the end read those positions from PostgreSQL's own to_tsvector (the parser and
// stemmer, not the engine), so a test can state its records as text.
import type { Db } from "../../src/platform/db/index.js";

export interface Bm25Params {
  k1: number;
  b: number;
}

export const BM25_DEFAULTS: Bm25Params = { k1: 1.2, b: 0.75 };

/**
 * A record as its lexemes by position (position 1 at index 0); null where no lexeme is (a stop
 * word's position, which a phrase may step over).
 */
export interface RefDoc {
  id: string;
  seq: number;
  tokens: (string | null)[];
}

/**
 * A query term: a lexeme, or a phrase as its lexemes in order, null where the phrase's stop word
 * was (any position matches there: phraseto_tsquery's `<2>`).
 */
export type RefTerm = string | (string | null)[];

/** The record's length |d|: its lexeme occurrences (stop words are not lexemes). */
export function docLength(doc: RefDoc): number {
  return doc.tokens.filter((token) => token !== null).length;
}

/** How often the term occurs in the record (a phrase: the positions where it starts). */
export function occurrences(doc: RefDoc, term: RefTerm): number {
  if (typeof term === "string") return doc.tokens.filter((token) => token === term).length;
  let n = 0;
  for (let start = 0; start + term.length <= doc.tokens.length; start++) {
    if (term.every((lexeme, i) => lexeme === null || doc.tokens[start + i] === lexeme)) n++;
  }
  return n;
}

/** The distinct terms, first occurrence kept. */
export function distinctTerms(terms: RefTerm[]): RefTerm[] {
  const seen = new Set<string>();
  return terms.filter((term) => {
    const key = JSON.stringify(term);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export interface Bm25Stats {
  n: number;
  avgdl: number;
  df: number[];
  idf: number[];
}

/** N, avgdl and each term's df and idf over the statistics' population. */
export function bm25Stats(population: RefDoc[], terms: RefTerm[]): Bm25Stats {
  const n = population.length;
  const avgdl = n === 0 ? 0 : population.reduce((sum, doc) => sum + docLength(doc), 0) / n;
  const df = terms.map((term) => population.filter((doc) => occurrences(doc, term) > 0).length);
  const idf = df.map((d) => Math.log(1 + (n - d + 0.5) / (d + 0.5)));
  return { n, avgdl, df, idf };
}

/**
 * text_match of each record of `docs` (0 when it holds none of the terms), with the statistics
 * over `population` (which need not hold `docs`: a search may score records outside it).
 */
export function bm25Scores(
  population: RefDoc[],
  docs: RefDoc[],
  queryTerms: RefTerm[],
  params: Bm25Params = BM25_DEFAULTS,
): Map<string, number> {
  const terms = distinctTerms(queryTerms);
  const { avgdl, idf } = bm25Stats(population, terms);
  const { k1, b } = params;
  const ceiling = idf.reduce((sum, w) => sum + w * (k1 + 1), 0);
  const scores = new Map<string, number>();
  for (const doc of docs) {
    const dl = docLength(doc);
    let sum = 0;
    terms.forEach((term, i) => {
      const tf = occurrences(doc, term);
      if (tf === 0) return;
      const norm = avgdl === 0 ? 1 : 1 - b + (b * dl) / avgdl;
      sum += ((idf[i] as number) * tf * (k1 + 1)) / (tf + k1 * norm);
    });
    scores.set(doc.id, ceiling === 0 ? 0 : sum / ceiling);
  }
  return scores;
}

export interface Ranked {
  id: string;
  seq: number;
  score: number;
}

/**
 * The records of `candidates` holding at least one term (and none of `excluded`), best first,
 * newest seq first among equal scores; the first k.
 */
export function bm25Ranking(
  population: RefDoc[],
  candidates: RefDoc[],
  queryTerms: RefTerm[],
  options: { k?: number; params?: Bm25Params; excluded?: RefTerm[] } = {},
): Ranked[] {
  const terms = distinctTerms(queryTerms);
  const excluded = options.excluded ?? [];
  const matching = candidates.filter(
    (doc) =>
      terms.some((term) => occurrences(doc, term) > 0) &&
      !excluded.some((term) => occurrences(doc, term) > 0),
  );
  const scores = bm25Scores(population, matching, terms, options.params);
  const ranked = matching
    .map((doc) => ({ id: doc.id, seq: doc.seq, score: scores.get(doc.id) as number }))
    .sort((a, b) => b.score - a.score || b.seq - a.seq);
  return options.k === undefined ? ranked : ranked.slice(0, options.k);
}

/**
 * Compares a search's ids with the reference ranking (computed without a cut) for its first k.
 * Equal when no two different scores are closer than `eps` around the cut; otherwise (float
 * noise could order such near-ties either way) each position's score must match the reference's
 * and records of exactly equal score must come newest first. Returns a message, or undefined.
 */
export function rankingMismatch(
  got: string[],
  reference: Ranked[],
  k: number,
  eps = 1e-9,
): string | undefined {
  const expected = reference.slice(0, k);
  const same = got.length === expected.length && got.every((id, i) => id === expected[i]?.id);
  if (same) return undefined;
  const describe = () =>
    `got ${JSON.stringify(got.map((id) => byId.get(id) ?? { id, score: "not a match" }))}\nexpected ${JSON.stringify(expected)}`;
  const byId = new Map(reference.map((r) => [r.id, r]));
  const window = reference.slice(0, k + 1);
  const nearTie = window.some((r, i) => {
    const next = window[i + 1];
    return next !== undefined && r.score !== next.score && Math.abs(r.score - next.score) < eps;
  });
  if (!nearTie || got.length !== expected.length) return describe();
  for (let i = 0; i < got.length; i++) {
    const mine = byId.get(got[i] as string);
    if (!mine || Math.abs(mine.score - (expected[i] as Ranked).score) >= eps) return describe();
    const before = i > 0 ? byId.get(got[i - 1] as string) : undefined;
    if (before && before.score === mine.score && before.seq < mine.seq) return describe();
  }
  if (new Set(got).size !== got.length) return describe();
  return undefined;
}

// ---- Reading positions from PostgreSQL's parser ----

/** The records' texts as lexemes by position, read from to_tsvector(config, text). */
export async function tokenize(db: Db, texts: string[], config = "english"): Promise<(string | null)[][]> {
  const { rows } = await db.query<{ i: number | string; lexeme: string; positions: number[] | string }>(
    `SELECT d.i, u.lexeme, u.positions
       FROM unnest($2::text[]) WITH ORDINALITY AS d(text, i),
            unnest(to_tsvector($1::regconfig, d.text)) AS u`,
    [config, texts],
  );
  const out: (string | null)[][] = texts.map(() => []);
  for (const row of rows) {
    const tokens = out[Number(row.i) - 1] as (string | null)[];
    const positions = Array.isArray(row.positions)
      ? row.positions
      : String(row.positions).replace(/[{}]/g, "").split(",").filter(Boolean).map(Number);
    for (const p of positions) {
      while (tokens.length < p) tokens.push(null);
      tokens[p - 1] = row.lexeme;
    }
  }
  return out;
}

/**
 * The query's terms as the engine parses q (src/search/sql.ts textTerms): a quoted phrase is one
 * term, an unquoted word gives its lexemes, `-word` / `-"phrase"` only excludes; words that are
 * only stop words give nothing. Duplicates (the same lexeme or phrase) are dropped.
 */
export async function queryTerms(
  db: Db,
  q: string,
  config = "english",
): Promise<{ terms: RefTerm[]; excluded: RefTerm[] }> {
  const parts = [...q.matchAll(/(-?)"([^"]+)"|(-?)(\S+)/g)].map((m) => ({
    text: m[2] ?? m[4] ?? "",
    phrase: m[2] !== undefined,
    negate: (m[1] ?? m[3]) === "-",
  }));
  const tokens = await tokenize(
    db,
    parts.map((p) => p.text),
    config,
  );
  const terms: RefTerm[] = [];
  const excluded: RefTerm[] = [];
  parts.forEach((part, i) => {
    const lexemes = tokens[i] as (string | null)[];
    const into = part.negate ? excluded : terms;
    if (part.phrase) {
      // Leading stop words drop out of a phrase; inner ones keep their place.
      const first = lexemes.findIndex((l) => l !== null);
      if (first < 0) return;
      const phrase = lexemes.slice(first);
      into.push(phrase.length === 1 ? (phrase[0] as string) : phrase);
    } else {
      for (const lexeme of lexemes) if (lexeme !== null) into.push(lexeme);
    }
  });
  return { terms: distinctTerms(terms), excluded: distinctTerms(excluded) };
}

/** Written records as reference records: their seq from the database, lexemes from their texts. */
export async function refDocs(
  db: Db,
  written: { id: string; text: string }[],
  config = "english",
): Promise<RefDoc[]> {
  const { rows } = await db.query<{ id: string; seq: number | string }>(
    "SELECT id, seq FROM records WHERE id = ANY($1::uuid[])",
    [written.map((w) => w.id)],
  );
  const seqs = new Map(rows.map((row) => [row.id, Number(row.seq)]));
  const tokens = await tokenize(
    db,
    written.map((w) => w.text),
    config,
  );
  return written.map((w, i) => {
    const seq = seqs.get(w.id);
    if (seq === undefined) throw new Error(`no record ${w.id}`);
    return { id: w.id, seq, tokens: tokens[i] as (string | null)[] };
  });
}
