// Text proposals by BM25 without scoring every match of a common word. The records holding the
// query's rare terms are all read; those holding its common words are read from the cells of the
// text index (text-cells.ts), highest bound first, a round at a time in one recursive statement,
// until `limit` candidates are in hand. A record not read holds no rare term and each common word
// only in cells not read, so it weighs at most the sum of each word's best unread bound: when
// the k-th candidate (the search's k, `exact`) outranks that, the top k is exactly brute-force
// BM25's; otherwise every cell weighing more than its share of the k-th's rank is read too, in one
// more statement, after which it is. The rest of the pool is the best of the records read,
// topped up with other matches when fewer than `limit` were read.
import type { Db } from "../platform/db/index.js";
import { type Bm25Rank, bm25Sql } from "./bm25.js";
import { candidateRows, type Params, routeFilter, textMatches } from "./sql.js";
import { cellsByBound, cellToken } from "./text-cells.js";
import type { Candidate } from "./types.js";

/** Best first: text_match, then newest (the exhaustive statement's order). */
export const byRank = (a: Candidate, b: Candidate) =>
  Number(b.text_match) - Number(a.text_match) || Number(b.seq) - Number(a.seq);

export interface WalkQuery {
  db: Db;
  /** The candidate columns over records r (candidateColumns), in a statement of these params. */
  select: (params: Params) => string;
  workspaceId: string;
  rank: Bm25Rank;
  /** Lexemes read by cells, each with its idf. */
  common: { lexeme: string; idf: number }[];
  /** A tsquery of the rare terms, whose every record is read (undefined: none). */
  rare: string | undefined;
  /** A record of a cell may still not match the query (exclusions, a term of several lexemes). */
  check: boolean;
  /**
   * Builds the round's parameters, visibility filters and tsquery (the caller's), and the
   * caller's extra output columns (each starting with a comma, or empty).
   */
  base: () => { params: Params; where: string; tsq: string; columns: string };
  limit: number;
  /** How many of the best candidates must be exactly brute force's (the search's k). */
  exact: number;
}

/** Rounds of the walk: each reads the cells whose bound is within a factor of the last's. */
const ROUND_FACTOR = 0.85;
const MAX_ROUNDS = 48;
/** Float slack: a bound this close to the k-th's rank does not certify it. */
const SLACK = 1e-9;

interface Entry {
  word: number;
  token: string;
  /** The most a record of the cell weighs through this word, in text_match units. */
  bound: number;
  /** The cell's weight before idf (Cell.weight). */
  weight: number;
  round: number;
}

/** Every (word, cell) with its bound and round, best first. */
function entries(query: WalkQuery): Entry[] {
  const cells = cellsByBound(query.rank);
  const all = query.common.flatMap((word, w) =>
    cells.map((cell) => ({
      word: w,
      token: cellToken(query.workspaceId, cell, word.lexeme),
      bound: (word.idf * cell.weight) / query.rank.norm,
      weight: cell.weight,
      round: 0,
    })),
  );
  all.sort((a, b) => b.bound - a.bound);
  const top = all[0]?.bound ?? 0;
  for (const entry of all) {
    const round =
      top > 0 && entry.bound > 0
        ? Math.floor(Math.log(entry.bound / top) / Math.log(ROUND_FACTOR)) + 1
        : MAX_ROUNDS;
    entry.round = Math.min(Math.max(round, 1), MAX_ROUNDS);
  }
  return all;
}

/** What a record read through none of `unread` can weigh at most: each word's best unread bound. */
function unreadBound(unread: Entry[]): number {
  const best = new Map<number, number>();
  for (const entry of unread) best.set(entry.word, Math.max(best.get(entry.word) ?? 0, entry.bound));
  return [...best.values()].reduce((sum, bound) => sum + bound, 0);
}

/** The top `limit` by BM25, the best `exact` of them exactly brute force's. */
export async function walkTextCandidates(query: WalkQuery): Promise<Candidate[]> {
  const all = entries(query);
  const walked = await readCells(query, all, true);
  let rows = walked.rows;
  let unread = all.filter((entry) => entry.round > walked.round);
  const kth = rows[Math.min(query.exact, query.limit) - 1];
  const rank = kth === undefined ? 0 : Number(kth.text_match);
  if (unread.length > 0 && rank <= unreadBound(unread) + SLACK) {
    // Each word's cells down to the weight at which the words' bounds together fall below the
    // k-th's rank (all of them when there is no k-th yet).
    const idfs = query.common.reduce((sum, word) => sum + word.idf, 0);
    const weight = (rank * query.rank.norm) / idfs - SLACK;
    const lower = rank > 0 ? unread.filter((entry) => entry.weight >= weight) : unread;
    const seen = new Set(rows.map((row) => row.id));
    const below = (await readCells(query, lower, false)).rows;
    rows = [...rows, ...below.filter((row) => !seen.has(row.id))].sort(byRank).slice(0, query.limit);
    const readNow = new Set(lower);
    unread = unread.filter((entry) => !readNow.has(entry));
  }
  return rows.length < query.limit && unread.length > 0 ? topUp(query, rows) : rows;
}

/**
 * The pool filled up to `limit` with visible matches not read yet, any of them: each ranks below
 * the exact top, and stopping at the first ones found spares scoring every match.
 */
async function topUp(query: WalkQuery, rows: Candidate[]): Promise<Candidate[]> {
  const { params, where, tsq, columns } = query.base();
  const more = await candidateRows(
    query.db,
    `SELECT ${query.select(params)}, ${bm25Sql(params, query.rank)} AS text_match${columns}
     FROM (SELECT ${tsq} AS tsq) q, ${textMatches(routeFilter(query.db, params, query.workspaceId, "t"))}
     WHERE ${where} AND r.id <> ALL(${params.add(rows.map((row) => row.id))}::uuid[])
     LIMIT ${params.add(query.limit - rows.length)}`,
    params.values,
  );
  return [...rows, ...more].sort(byRank);
}

/**
 * One statement: the best `limit` visible records of the entries' cells, ranked by BM25, with the
 * last round read. `walk`: a round at a time from the first, until the counted matches reach the
 * limit (or the rounds run out), with every record of the rare terms; else the entries as one
 * round. Each record is read, checked and scored once, as its round is walked; only the best
 * `limit` are read again for their columns, by the row address (ctid) the walk read them at: a
 * TID scan, a sixth of a primary-key probe's time. An address is the statement's own: its
 * snapshot sees the same row version there, however the row is updated meanwhile.
 */
async function readCells(
  query: WalkQuery,
  read: Entry[],
  walk: boolean,
): Promise<{ rows: Candidate[]; round: number }> {
  const { params, where, tsq, columns } = query.base();
  const lastRound = walk ? Math.max(0, ...read.map((entry) => entry.round)) : 1;
  const tokenList = params.add(read.map((entry) => entry.token));
  const roundList = params.add(read.map((entry) => (walk ? entry.round : 1)));
  const limit = params.add(query.limit);
  const score = bm25Sql(params, query.rank);
  const match = query.check ? "AND r.search_text @@ q.tsq" : "";
  const route = routeFilter(query.db, params, query.workspaceId, "t");
  // The visible records of rounds first..last, each with its rank, read from the cell index
  // alone: the fence (OFFSET 0) keeps the planner from ANDing in the far larger bitmaps of the
  // workspace's other indexes.
  const ranked = (first: string, last: string) => `(SELECT count(*) AS n, array_agg(r.tid) AS tids,
      array_agg(r.seq) AS seqs, array_agg(${score}) AS ranks
    FROM (SELECT t.ctid AS tid, * FROM records t WHERE t.search_text IS NOT NULL
        AND engram_text_cells(t.workspace_id, t.search_text) &&
          (SELECT array_agg(u.token) FROM unnest(${tokenList}::text[], ${roundList}::int[]) AS u(token, round)
           WHERE u.round BETWEEN ${first} AND ${last}) ${route}
      OFFSET 0) r, q
    WHERE ${where} ${match})`;
  const rounds = walk
    ? `walk AS (
       SELECT 0 AS round, 0::bigint AS found, NULL::tid[] AS tids, NULL::bigint[] AS seqs, NULL::float8[] AS ranks
       UNION ALL
       SELECT w.round + 1, w.found + s.n, s.tids, s.seqs, s.ranks
       FROM walk w, LATERAL ${ranked("w.round + 1", "w.round + 1")} s
       WHERE w.found < ${limit} AND w.round < ${lastRound}
     )`
    : `walk AS (SELECT 1 AS round, s.n AS found, s.tids, s.seqs, s.ranks FROM ${ranked("1", "1")} s)`;
  // Every record holding a rare term is read and ranked too, in the walk.
  const rare =
    walk && query.rare
      ? `UNION SELECT r.tid, r.seq, ${score}
       FROM (SELECT t.ctid AS tid, * FROM records t WHERE t.search_text @@ ${params.add(query.rare)}::tsquery
         ${route} OFFSET 0) r, q
       WHERE ${where} ${match}`
      : "";
  // DISTINCT and UNION: a record in several rounds (one per word) or also rare is one candidate.
  const rows = await candidateRows<Candidate & { walked_round: number }>(
    query.db,
    `WITH RECURSIVE q AS (SELECT ${tsq} AS tsq), ${rounds},
     best AS (
       SELECT DISTINCT u.tid, u.seq, u.rank FROM walk w, unnest(w.tids, w.seqs, w.ranks) AS u(tid, seq, rank)
       ${rare}
       ORDER BY rank DESC, seq DESC LIMIT ${limit})
     SELECT ${query.select(params)}, b.rank AS text_match, (SELECT max(round) FROM walk) AS walked_round${columns}
     FROM best b JOIN records r ON r.ctid = b.tid AND r.workspace_id = ${params.workspace(query.workspaceId)}
     ORDER BY text_match DESC, r.seq DESC`,
    params.values,
  );
  return {
    rows: rows.map(({ walked_round: _, ...candidate }) => candidate),
    // No row read: the walk went through every round.
    round: walk ? (rows[0] ? Number(rows[0].walked_round) : lastRound) : 1,
  };
}
