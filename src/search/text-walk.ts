// Text proposals by BM25 without scoring every match of a common word. The records holding the
// query's rare terms are all read; those holding its common words are read from the cells of the
// text index (text-cells.ts), highest bound first, a round at a time in a recursive statement
// (the next rounds in another while the pool is short), until `limit` candidates are in hand. A
// record not read holds no rare term and each common word only in cells not read, so it weighs
// at most the sum of each word's best unread bound: when the k-th candidate (the search's k,
// `exact`) outranks that, the top k is exactly brute-force BM25's. Otherwise what could still
// outrank it is read: a record's words all sit in cells of its own length, so for each length
// and each set of two or more words whose unread bounds there reach the k-th's rank, the records
// holding every word of the set in a cell that can (heavyPatterns); then each word's cells whose
// bound alone reaches it. The rest of the pool is the best of the records read, topped up with
// other matches when fewer than `limit` were read.
import type { Db } from "../platform/db/index.js";
import type { Bm25Rank } from "./bm25.js";
import { candidateRows, type Params, routeFilter, textMatches } from "./sql.js";
import { type Cell, cellsByBound, cellToken } from "./text-cells.js";
import { bm25Sql } from "./text-rank-sql.js";
import { anyPatternSql, cellsHoldSql, holdingPatternsSql, readCellsSql, topUpSql } from "./text-walk-sql.js";
import type { Candidate } from "./types.js";

/** Best first: text_match, then newest (the exhaustive statement's order). */
const byRank = (a: Candidate, b: Candidate) =>
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

/**
 * Rounds of the walk, by the cells' bounds relative to the best: 3% apart (BM25 saturates, so a
 * common word's records crowd in a narrow band of bounds); what is below the last round's, in it.
 */
const ROUND_FACTOR = 0.97;
const MAX_ROUNDS = 200;
/** Float slack: a bound this close to the k-th's rank does not certify it. */
const SLACK = 1e-9;

/** The round of a bound, `ratio` of the best one's. */
const roundOf = (ratio: number) =>
  ratio > 0 ? Math.min(Math.floor(Math.log(ratio) / Math.log(ROUND_FACTOR)) + 1, MAX_ROUNDS) : MAX_ROUNDS;

interface Entry {
  word: number;
  cell: Cell;
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
      cell,
      bound: (word.idf * cell.weight) / query.rank.norm,
      weight: cell.weight,
      round: 0,
    })),
  );
  all.sort((a, b) => b.bound - a.bound);
  const top = all[0]?.bound ?? 0;
  for (const entry of all) entry.round = top > 0 ? roundOf(entry.bound / top) : MAX_ROUNDS;
  return all;
}

/** What a record read through none of `unread` can weigh at most: each word's best unread bound. */
function unreadBound(unread: Entry[]): number {
  const best = new Map<number, number>();
  for (const entry of unread) best.set(entry.word, Math.max(best.get(entry.word) ?? 0, entry.bound));
  return [...best.values()].reduce((sum, bound) => sum + bound, 0);
}

/** The best `limit` of two candidate lists, a record once. */
function merged(rows: Candidate[], more: Candidate[], limit: number): Candidate[] {
  const seen = new Set(rows.map((row) => row.id));
  return [...rows, ...more.filter((row) => !seen.has(row.id))].sort(byRank).slice(0, limit);
}

/**
 * Bounds on the sets of words heavyPatterns enumerates (sets visited, word sets kept): past them,
 * each word's cells are read down to one weight before idf instead.
 */
const MAX_VISITS = 4096;
const MAX_PATTERNS = 64;

/** The records holding each of `words`, in one of that word's `cells`. */
interface Pattern {
  words: number[];
  cells: Map<number, Entry[]>;
}

/**
 * The sets of two or more words whose unread cells together can reach `rank` in a record of one
 * length, each word with the unread cells of that length that can (its bound with the others'
 * best reaches it), over every length; undefined when there are too many. A record not read
 * whose words weigh at least `rank` holds the words of one of them in their cells: its words'
 * first prefix (in the enumeration's order) to reach `rank` is a set whose bounds there reach
 * it too, or its first word alone does (each word's cells, read after).
 */
function heavyPatterns(unread: Entry[], rank: number): Pattern[] | undefined {
  const byLength = new Map<number, Map<number, Entry[]>>();
  for (const entry of unread) {
    const words = byLength.get(entry.cell.length) ?? new Map<number, Entry[]>();
    byLength.set(entry.cell.length, words);
    words.set(entry.word, [...(words.get(entry.word) ?? []), entry]);
  }
  const patterns = new Map<string, Pattern>();
  let visits = 0;
  for (const words of byLength.values()) {
    // Each word's best unread bound at this length (entries are best first), largest first.
    const best = [...words].map(([word, entries]) => ({ word, bound: (entries[0] as Entry).bound }));
    best.sort((a, b) => b.bound - a.bound);
    const rest = best.map((_, i) => best.slice(i).reduce((sum, word) => sum + word.bound, 0));
    const add = (set: typeof best, total: number) => {
      const key = set.map((word) => word.word).join(",");
      const pattern = patterns.get(key) ?? { words: set.map((word) => word.word), cells: new Map() };
      patterns.set(key, pattern);
      for (const { word, bound } of set) {
        const reach = (words.get(word) ?? []).filter((entry) => entry.bound + total - bound + SLACK >= rank);
        pattern.cells.set(word, [...(pattern.cells.get(word) ?? []), ...reach]);
      }
    };
    const visit = (start: number, set: typeof best, sum: number): boolean => {
      for (let i = start; i < best.length; i++) {
        // Words are largest first: a set that cannot reach with all later words, nor can a later one.
        if (sum + (rest[i] as number) + SLACK < rank) break;
        if (++visits > MAX_VISITS) return false;
        const next = [...set, best[i] as (typeof best)[number]];
        const total = sum + (best[i] as (typeof best)[number]).bound;
        if (next.length > 1 && total + SLACK >= rank) add(next, total);
        if (!visit(i + 1, next, total)) return false;
      }
      return true;
    };
    if (!visit(0, [], 0) || patterns.size > MAX_PATTERNS) return undefined;
  }
  return [...patterns.values()];
}

/** Reads halfway to the k-th before reading down to it. */
const HALVINGS = 1;

/** Tokens a walk statement carries: whole rounds, at least one, up to about this many. */
const WALK_TOKENS = 400;

/** The first rounds of `unread` (best first), whole, up to about WALK_TOKENS tokens. */
function nextRounds(unread: Entry[]): Entry[] {
  let end = 0;
  while (end < unread.length) {
    const round = (unread[end] as Entry).round;
    let next = end;
    while (next < unread.length && (unread[next] as Entry).round === round) next++;
    if (end > 0 && next > WALK_TOKENS) break;
    end = next;
  }
  return unread.slice(0, end);
}

/** The top `limit` by BM25, the best `exact` of them exactly brute force's. */
export async function walkTextCandidates(query: WalkQuery): Promise<Candidate[]> {
  let rows: Candidate[] = [];
  let unread = entries(query);
  // The walk goes a statement at a time over the next rounds' cells (most never get read: a
  // statement carrying every cell's token spent more on its array than on its reads).
  // A cut round counts the rows held as found, but its matches may be among them (a rare term's
  // records, read by the first statement): one that brought nothing new would be cut at the same
  // place again and again. When a statement read no round whole, the next reads its rounds whole,
  // so every statement after it advances.
  let cut = true;
  for (let first = true; unread.length > 0 && (first || rows.length < query.limit); first = false) {
    const rounds = nextRounds(unread);
    const walked = await readCells(query, rounds, { rare: first, found: rows.length, cut });
    rows = merged(rows, walked.rows, query.limit);
    cut = walked.round >= (rounds[0] as Entry).round;
    unread = unread.filter((entry) => entry.round > walked.round);
  }
  const kth = () => {
    const row = rows[Math.min(query.exact, query.limit) - 1];
    return row === undefined ? 0 : Number(row.text_match);
  };
  // What a record not read can weigh at most; while the k-th does not outrank it, what could is
  // read down to a target: halfway to the k-th first (the best of what is left raises the k-th,
  // which narrows the next read), then the k-th itself.
  let ceiling = unreadBound(unread);
  for (let step = 0; unread.length > 0 && kth() <= ceiling + SLACK; step++) {
    const halfway = (kth() + ceiling) / 2;
    const last = kth() <= 0 || step >= HALVINGS || halfway <= kth();
    const target = last ? kth() : halfway;
    // With no k-th every cell is read below; else the records whose words could reach it together.
    const patterns = target > 0 ? heavyPatterns(unread, target) : undefined;
    if (patterns && patterns.length > 0)
      rows = merged(rows, await holdingPatterns(query, patterns, rows), query.limit);
    // Each word's cells down to where the word alone (patterns read) falls below the target, or
    // (too many patterns) where the words together do, each word's cells to the same weight
    // before idf; every cell when there is no k-th.
    const idfs = query.common.reduce((sum, word) => sum + word.idf, 0);
    const scale = (entry: Entry) => (patterns ? 1 : idfs / (query.common[entry.word]?.idf ?? idfs));
    const lower =
      target <= 0 ? unread : unread.filter((entry) => entry.bound * scale(entry) + SLACK >= target);
    if (lower.length > 0) rows = merged(rows, (await readCells(query, lower)).rows, query.limit);
    const readNow = new Set(lower);
    unread = unread.filter((entry) => !readNow.has(entry));
    if (last) break;
    ceiling = target;
  }
  return rows.length < query.limit && unread.length > 0 ? topUp(query, rows) : rows;
}

/**
 * The best `limit` records not read yet matching one of the patterns, read through the cell
 * index alone (fenced, as textMatches): each word of a pattern is one overlap of its tokens.
 * Each token list is a subquery's value, which the planner cannot see: given the lists, it
 * costed each token as if a record in a few held it and, over a hundred of them, expected
 * every record and scanned the table (seconds at 1M records; the index: 36 ms).
 */
async function holdingPatterns(
  query: WalkQuery,
  patterns: Pattern[],
  read: Candidate[],
): Promise<Candidate[]> {
  const { params, where, tsq, columns } = query.base();
  const token = (entry: Entry) =>
    cellToken(query.workspaceId, entry.cell, query.common[entry.word]?.lexeme ?? "");
  const any = anyPatternSql(
    patterns.map((pattern) =>
      pattern.words.map((word) =>
        cellsHoldSql(params.add([...new Set((pattern.cells.get(word) ?? []).map(token))])),
      ),
    ),
  );
  const filter = {
    where,
    check: query.check,
    route: routeFilter(params, { db: query.db, workspaceId: query.workspaceId, alias: "t" }),
  };
  return candidateRows(query.db, {
    sql: holdingPatternsSql(filter, {
      any,
      select: query.select(params),
      score: bm25Sql(params, query.rank),
      signals: columns,
      tsq,
      read: params.add(read.map((row) => row.id)),
      limit: params.add(query.limit),
    }),
    values: params.values,
  });
}

/**
 * The pool filled up to `limit` with visible matches not read yet, any of them: each ranks below
 * the exact top, and stopping at the first ones found spares scoring every match.
 */
async function topUp(query: WalkQuery, rows: Candidate[]): Promise<Candidate[]> {
  const { params, where, tsq, columns } = query.base();
  const more = await candidateRows(query.db, {
    sql: topUpSql({
      select: query.select(params),
      score: bm25Sql(params, query.rank),
      signals: columns,
      tsq,
      matches: textMatches(routeFilter(params, { db: query.db, workspaceId: query.workspaceId, alias: "t" })),
      where,
      read: params.add(rows.map((row) => row.id)),
      limit: params.add(query.limit - rows.length),
    }),
    values: params.values,
  });
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
  /**
   * Present for a walk: with every record of the rare terms (`rare`), from `found` matches, each
   * round cut at the matches still needed (`cut`, a query of one common word only).
   */
  walk?: { rare: boolean; found: number; cut: boolean },
): Promise<{ rows: Candidate[]; round: number }> {
  const { params, where, tsq, columns } = query.base();
  // Rounds numbered from 1 in the statement: the walk's first is `base` + 1.
  const base = walk ? Math.min(...read.map((entry) => entry.round)) - 1 : 0;
  const lastRound = walk ? Math.max(...read.map((entry) => entry.round)) - base : 1;
  // The tokens in round order (the entries are best first), and where each round's start:
  // round r's are tokens[starts[r] : starts[r + 1] - 1], a slice instead of a filter per round.
  const tokenList = params.add(
    read.map((entry) => cellToken(query.workspaceId, entry.cell, query.common[entry.word]?.lexeme ?? "")),
  );
  const starts = [1];
  for (let round = 1, i = 0; round <= lastRound; round++) {
    while (i < read.length && (!walk || (read[i] as Entry).round - base <= round)) i++;
    starts.push(i + 1);
  }
  const startList = params.add(starts);
  const limit = params.add(query.limit);
  const score = bm25Sql(params, query.rank);
  const route = routeFilter(params, { db: query.db, workspaceId: query.workspaceId, alias: "t" });
  // A walk's round stops at the matches it still needs (`cut`): a common word's round holds
  // thousands of records, and under a filter a whole round was read for a few hundred (a
  // filtered "database" at 1M records read 21k records for 200 matches, 124 ms). A round cut at
  // its need is not read: its records stay bounded by its cells' bound, and may be read again.
  // Only a query of one common word is cut: with several, a cut round's cells widen the patterns
  // the certificate reads (heavyPatterns), which cost more than the round (at 1M, "provider
  // free" 175 -> 433 ms). Given the tokens as constants rather than a recursive term's outer
  // reference, the planner estimated a large read and scanned the table, computing every
  // record's cells (seconds at 100k records).
  const rows = await candidateRows<Candidate & { walked_round: number }>(query.db, {
    sql: readCellsSql({
      filter: { where, check: query.check, route },
      tsq,
      score,
      tokens: tokenList,
      starts: startList,
      lastRound,
      walk: walk !== undefined,
      cut: walk?.cut === true && query.common.length === 1,
      found: params.add(walk?.found ?? 0),
      // Every record holding a rare term is read and ranked too, in the walk.
      rare: walk?.rare && query.rare ? params.add(query.rare) : undefined,
      limit,
      select: query.select(params),
      signals: columns,
      workspace: params.workspace(query.workspaceId),
    }),
    values: params.values,
  });
  return {
    rows: rows.map(({ walked_round: _, ...candidate }) => candidate),
    // The last round read whole (a cut one is not); no row read: the walk went through every round.
    round: walk ? (rows[0] ? Number(rows[0].walked_round) : lastRound) + base : 1,
  };
}
