// text_match as Okapi BM25 over the workspace's own statistics (docs/api.md, "Relevance: text_match"):
// the query's terms (each lexeme of its words, each quoted phrase as one term) with their
// document frequencies, and the SQL expression scoring a record, divided by the query's largest
// possible BM25 so that it lies in [0, 1]. A profile with `text_rank: ts_rank_cd` keeps that rank.
import {
  DEFAULT_BM25,
  type InstalledCatalog,
  type SearchProfileDef,
  type TextRank,
} from "../catalog/index.js";
import type { Db } from "../platform/db/index.js";
import { buildTextStats, TOTALS_LEXEME } from "../records/index.js";
import type { TextTerm } from "./sql.js";
import * as sql from "./sql.js";

/** A phrase as its lexemes and their distances from the first (phraseto_tsquery's). */
export interface Phrase {
  /** The phrase's tsquery, as text. */
  query: string;
  lexemes: string[];
  /** Position of each lexeme after the first one's; undefined when the query has other operators. */
  offsets: number[] | undefined;
}

export interface Bm25Term {
  lexeme?: string;
  phrase?: Phrase;
  /** Searchable records holding the term. */
  df: number;
  idf: number;
}

export interface Bm25Rank {
  kind: "bm25";
  k1: number;
  b: number;
  terms: Bm25Term[];
  /** Searchable records of the workspace with the profile's text configuration, and their mean length. */
  n: number;
  avgdl: number;
  /** The query's largest possible BM25: sum of idf * (k1 + 1). */
  norm: number;
  /** A word of the query is several lexemes (a record may hold one of them and not match it). */
  compound: boolean;
  /** Each wanted term of the query, in its order: the indexes of its lexemes (or phrase) in `terms`. */
  byTerm: number[][];
}

export type TextRanker = Bm25Rank | { kind: "ts_rank_cd" };

/** A lexeme as a tsquery operand, taken as it is (no normalization again). */
export const lexemeQuery = (lexeme: string) => `'${lexeme.replace(/\\/g, "\\\\").replace(/'/g, "''")}'`;

/** idf(t) = ln(1 + (N - df + 0.5) / (df + 0.5)). */
export const idf = (n: number, df: number) => Math.log(1 + (n - df + 0.5) / (df + 0.5));

/** The query's largest possible BM25 over its terms: sum of idf * (k1 + 1) (text_match's divisor). */
const normOf = (terms: Bm25Term[], k1: number) => terms.reduce((sum, term) => sum + term.idf * (k1 + 1), 0);

/** One term's BM25 weight in a record (the SQL expression computes the same). */
export function termWeight(rank: Pick<Bm25Rank, "k1" | "b" | "avgdl">, tf: number, length: number): number {
  return (tf * (rank.k1 + 1)) / (tf + rank.k1 * (1 - rank.b + (rank.b * length) / rank.avgdl));
}

const OPERAND = /'((?:[^'\\]|''|\\.)*)'|<(-|\d+)>|\s+/y;

/**
 * A phrase's tsquery text ('a' <-> 'b' <2> 'c') as lexemes and offsets; offsets undefined when
 * it holds anything else (then a record holding the phrase counts it once).
 */
function parsePhrase(query: string): Phrase {
  const lexemes: string[] = [];
  const offsets: number[] = [];
  let distance = 0;
  let position = 0;
  let parsed = true;
  OPERAND.lastIndex = 0;
  while (OPERAND.lastIndex < query.length) {
    const match = OPERAND.exec(query);
    if (!match) {
      parsed = false;
      break;
    }
    if (match[1] !== undefined) {
      position += lexemes.length === 0 ? 0 : distance;
      lexemes.push(match[1].replace(/''/g, "'").replace(/\\(.)/g, "$1"));
      offsets.push(position);
      distance = 0;
    } else if (match[2] !== undefined) distance = match[2] === "-" ? 1 : Number(match[2]);
  }
  return { query, lexemes, offsets: parsed && lexemes.length > 0 ? offsets : undefined };
}

interface TermsRow {
  terms: { phrase: boolean; lexemes: string[] | null; query: string | null }[] | null;
  stats: Record<string, number | string> | null;
  built: boolean | null;
}

/** The ranker of a text query under a search profile (none for a query without wanted terms). */
export async function textRanker(
  db: Db,
  query: {
    workspaceId: string;
    catalog: InstalledCatalog;
    profile: SearchProfileDef | undefined;
    terms: TextTerm[];
  },
): Promise<TextRanker> {
  const { workspaceId, catalog, profile, terms } = query;
  const rank: TextRank = profile?.text_rank ?? DEFAULT_BM25;
  if (rank.kind === "ts_rank_cd") return rank;
  const config = profile?.text_config ?? "english";
  const wanted = terms.filter((term) => !term.negate);
  if (wanted.length === 0)
    return { ...rank, terms: [], n: 0, avgdl: 1, norm: 0, compound: false, byTerm: [] };
  const read = () =>
    db.queryRepeated<TermsRow>(sql.TERMS_AND_STATS, [
      workspaceId,
      config,
      wanted.map((term) => term.text),
      wanted.map((term) => term.phrase),
    ]);
  let { rows } = await read();
  // A workspace whose records predate the statistics has them built at its first search.
  if (rows[0]?.built === false && (await buildTextStats(db, workspaceId, catalog))) ({ rows } = await read());
  const row = rows[0];
  const stats = new Map(
    Object.entries(row?.stats ?? {}).map(([lexeme, value]) => {
      const [docs, occurrences] = String(value).split(":").map(Number);
      return [lexeme, { docs: docs ?? 0, occurrences: occurrences ?? 0 }];
    }),
  );
  const totals = stats.get(TOTALS_LEXEME) ?? { docs: 0, occurrences: 0 };
  const n = totals.docs;
  const lexemes = [...new Set((row?.terms ?? []).flatMap((term) => term.lexemes ?? []))];
  const phrases = [
    ...new Map(
      (row?.terms ?? []).flatMap((term) => (term.query ? [[term.query, parsePhrase(term.query)]] : [])),
    ).values(),
  ].filter((phrase) => phrase.lexemes.length > 0);
  const phraseDf = await Promise.all(
    phrases.map(async (phrase) =>
      Number(
        (await db.query<{ n: number }>(sql.PHRASE_DF, [workspaceId, config, phrase.query])).rows[0]?.n ?? 0,
      ),
    ),
  );
  const scored: Bm25Term[] = [
    ...lexemes.map((lexeme) => {
      const df = stats.get(lexeme)?.docs ?? 0;
      return { lexeme, df, idf: idf(n, df) };
    }),
    ...phrases.map((phrase, i) => {
      const df = phraseDf[i] ?? 0;
      return { phrase, df, idf: idf(n, df) };
    }),
  ];
  const phraseAt = new Map(phrases.map((phrase, i) => [phrase.query, lexemes.length + i]));
  return {
    kind: "bm25",
    k1: rank.k1,
    b: rank.b,
    terms: scored,
    n,
    avgdl: n > 0 && totals.occurrences > 0 ? totals.occurrences / n : 1,
    norm: normOf(scored, rank.k1),
    compound: (row?.terms ?? []).some((term) => (term.lexemes?.length ?? 0) > 1),
    byTerm: (row?.terms ?? []).map((term) =>
      term.query !== null
        ? [phraseAt.get(term.query)].filter((i): i is number => i !== undefined)
        : (term.lexemes ?? []).map((lexeme) => lexemes.indexOf(lexeme)),
    ),
  };
}

/**
 * The ranker of the query's `i`-th wanted term alone, from the whole query's (the statistics
 * are the same): what its own textRanker would return, without reading them again.
 */
export function termRank(rank: Bm25Rank, i: number): Bm25Rank {
  const terms = (rank.byTerm[i] ?? []).map((j) => rank.terms[j] as Bm25Term);
  return {
    ...rank,
    terms,
    norm: normOf(terms, rank.k1),
    compound: terms.filter((term) => term.lexeme !== undefined).length > 1,
    byTerm: [terms.map((_, j) => j)],
  };
}
