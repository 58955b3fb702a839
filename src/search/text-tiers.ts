// Text proposals by term-frequency tiers (issue 20). ts_rank_cd of an any-term query adds up the
// occurrences of the query's words, so the best matches of a common word are the records that
// repeat it most. Scoring every match read tens of thousands of rows; instead the records whose
// query words occur at least T times are read from the tier index (migration 0015), T going
// down the tiers, until `limit` candidates are in hand, and those are ranked by ts_rank_cd as
// before, read deeper when needed so that the top is exactly the exhaustive one (the bench
// measures recall@20 against it all the same); a pool the tiers cannot fill is topped up with
// other matches; below the lowest tier the rest is read by level (text-levels.ts). Queries the
// tiers cannot express (quoted phrases, a term that is several lexemes) score every match.
import type { Db } from "../platform/db/index.js";
import { candidateRows, type Params, routeFilter, type TextTerm, textMatches } from "./sql.js";
import { completeByLevels } from "./text-levels.js";
import { anyLexemeQuery, byRank, PER_OCCURRENCE, RANK_SLACK } from "./text-rank.js";
import { estimate, lexemeStats, tierStats } from "./text-stats.js";
import type { Candidate } from "./types.js";

/** Counts from `from` down to `to`, every `step`. */
const down = (from: number, to: number, step: number) =>
  Array.from({ length: (from - to) / step + 1 }, (_, i) => from - i * step);

/**
 * Lower bounds of the tiers, highest first, as engram_text_tiers (migration 0015) buckets the
 * counts: each a round of its own.
 */
const TIERS = [...down(224, 128, 32), ...down(112, 64, 16), ...down(56, 40, 8), ...down(32, 2, 1)];
const LOWEST_TIER = 2;

/** A wanted lexeme and the planner's estimate of how many records hold it (undefined: no statistics). */
export interface QueryLexeme {
  lexeme: string;
  matches: number | undefined;
}

/**
 * The lexeme of each wanted term with its estimated match count, or undefined when a wanted term
 * is a phrase or normalizes to more than one lexeme. Terms of stop words only have none and drop
 * out, as in the tsquery.
 */
export async function termLexemes(
  db: Db,
  workspaceId: string,
  config: string,
  terms: TextTerm[],
): Promise<QueryLexeme[] | undefined> {
  const wanted = terms.filter((term) => !term.negate);
  if (wanted.some((term) => term.phrase)) return undefined;
  const [{ rows }, stats] = await Promise.all([
    // Every text search not scoped by entity sends it: prepared, it skips parsing and planning.
    db.queryRepeated<{ lexemes: string[] }>(
      `SELECT ARRAY(SELECT u.lexeme FROM unnest(to_tsvector($1::regconfig, t.text)) AS u) AS lexemes
       FROM unnest($2::text[]) AS t(text)`,
      [config, wanted.map((term) => term.text)],
    ),
    lexemeStats(db, workspaceId),
  ]);
  if (rows.some((row) => row.lexemes.length > 1)) return undefined;
  const lexemes = [...new Set(rows.flatMap((row) => row.lexemes))];
  return lexemes.map((lexeme) => ({
    lexeme,
    matches: stats && estimate(stats, lexeme),
  }));
}

export interface TieredQuery {
  db: Db;
  /** The candidate columns over records r (candidateColumns), in a statement of these params. */
  select: (params: Params) => string;
  workspaceId: string;
  /** The query's lexemes by rarity (wordsByRarity), at least one of them common. */
  words: Words;
  /** The query excludes terms: a tiered record must still be checked against the tsquery. */
  exclusions: boolean;
  /**
   * Builds the round's parameters, visibility filters and tsquery (the caller's), and the
   * caller's extra output columns (each starting with a comma, or empty).
   */
  base: () => { params: Params; where: string; tsq: string; columns: string };
  limit: number;
  /** How many of the best candidates must be exactly the exhaustive ones (the search's k). */
  exact: number;
}

/**
 * A lexeme estimated to be in at most this many times the pool's records is rare: every record
 * holding it is read outright, so it adds nothing to the bound on the records left out.
 */
const RARE_POOL_SHARE = 10;

export interface Words {
  /** Rarest first (by the planner's estimate; unestimated last). */
  common: string[];
  rare: string[];
}

/** The lexemes read by tiers (common) and those whose every record is read (rare), for a pool of `limit`. */
export function wordsByRarity(lexemes: QueryLexeme[], limit: number): Words {
  const isRare = (l: QueryLexeme) => l.matches !== undefined && l.matches <= RARE_POOL_SHARE * limit;
  const estimate = (l: QueryLexeme) => l.matches ?? Number.POSITIVE_INFINITY;
  return {
    common: lexemes
      .filter((l) => !isRare(l))
      .sort((a, b) => estimate(a) - estimate(b))
      .map((l) => l.lexeme),
    rare: lexemes.filter(isRare).map((l) => l.lexeme),
  };
}

/** What a record outside the tiers read ranks at most: each word below its lowest tier read. */
const unreadBound = (tiers: number[]) =>
  PER_OCCURRENCE * tiers.reduce((sum, tier) => sum + tier - 1, 0) + RANK_SLACK;

/** Estimated records holding common word `word` (rarest first) in tier `tier`. */
export type TierSize = (word: number, tier: number) => number;

/** Without statistics, a word's tiers are taken to be as large as the word is common. */
const byRarity: TierSize = (word) => word;

/**
 * The lowest tier to read of each common word so that a record outside them ranks below `rank`,
 * starting from `walked` for every word, or undefined when even reading every tier (down to 2)
 * leaves a record that may rank as high. Tiers are lowered one at a time, each time the word's
 * whose next tier holds the fewest records per occurrence it takes off the bound (`size`): a
 * query of one very common word and two less common ones reads the less common ones' low tiers
 * instead of the very common one's, and two words of similar frequency each a few tiers down
 * rather than one of them all the way.
 */
export function tiersToRead(
  rank: number,
  walked: number,
  words: number,
  size: TierSize = byRarity,
): number[] | undefined {
  if (rank <= unreadBound(Array.from({ length: words }, () => LOWEST_TIER))) return undefined;
  const tiers = Array.from({ length: words }, () => walked);
  while (rank <= unreadBound(tiers)) {
    let cheapest: { word: number; tier: number; cost: number } | undefined;
    tiers.forEach((current, word) => {
      const next = TIERS[TIERS.indexOf(current) + 1];
      if (next === undefined) return;
      const cost = size(word, next) / (current - next);
      if (!cheapest || cost < cheapest.cost) cheapest = { word, tier: next, cost };
    });
    if (!cheapest) return undefined;
    tiers[cheapest.word] = cheapest.tier;
  }
  return tiers;
}

/** The tier sizes the tier index's statistics estimate for this workspace, when it has them. */
async function tierSizes(query: TieredQuery): Promise<TierSize | undefined> {
  const stats = await tierStats(query.db, query.workspaceId);
  if (!stats) return undefined;
  return (word, tier) => estimate(stats, `${query.workspaceId}:${tier}:${query.words.common[word]}`);
}

/**
 * The top `limit` candidates by ts_rank_cd, from the tiers, or undefined when the tiers and
 * levels cannot tell the best `exact` apart cheaply (the caller then scores every match). Rare
 * lexemes (by the planner's statistics) have every record holding them read; the common ones are
 * read by tiers: a recursive count walks the tiers down until `limit` visible matches are reached
 * or the tiers run out (a tier no record reaches is one index probe), and the records of the
 * tiers walked are ranked with the rare lexemes' records. A record left out holds no rare lexeme
 * and each of the n common ones fewer than T times (T the last tier walked), so it ranks at most
 * n (T - 1) occurrences; when the `exact`-th candidate does not rank above that, each word's
 * tiers are read down to a tier T_w of its own, such that the sum of the (T_w - 1) does
 * (tiersToRead). When not even T_w = 2 for every word does, or fewer than `exact` records were
 * read, every word is read down to 2 and the records holding each word once at most are read
 * by levels (completeByLevels). The best `exact` candidates are then exactly the exhaustive
 * ones; the rest of the pool is the best of the records read, topped up with other matches when
 * those are fewer than `limit` and the levels did not read every match (all of them rank below
 * the `exact`-th). Estimates only decide what is read, never what is exact.
 */
export async function tieredTextCandidates(query: TieredQuery): Promise<Candidate[] | undefined> {
  const { words } = query;
  const walked = await rankTiers(query);
  let rows = walked.rows;
  const last = rows[Math.min(query.exact, query.limit) - 1];
  const tier = TIERS[walked.round - 1] as number;
  const rank = last === undefined ? 0 : Number(last.text_match);
  if (rank <= unreadBound(words.common.map(() => tier))) {
    // Lower tiers read until they bound the unread records below it.
    const tiers = last && tiersToRead(rank, tier, words.common.length, await tierSizes(query));
    if (tiers) rows = await lowerTiers(query, rows, tier, tiers);
    else {
      // None do (or too few records were read): every tier, then the levels below them.
      const everyTier = words.common.map(() => LOWEST_TIER);
      if (tier > LOWEST_TIER) rows = await lowerTiers(query, rows, tier, everyTier);
      const levels = await completeByLevels(query, rows);
      if (!levels) return undefined;
      if (levels.every) return levels.rows;
      rows = levels.rows;
    }
  }
  return rows.length < query.limit ? topUp(query, rows) : rows;
}

/**
 * The best `limit` of `walked` (the walk's best: every common word's tiers down to `tier` and
 * every rare word's records) and of the common words' tiers below `tier` down to `through`. The
 * walk's records are not read again: one it read that is not among its best has `limit` records
 * of `walked` above it, and so stays out of the best of both.
 */
async function lowerTiers(
  query: TieredQuery,
  walked: Candidate[],
  tier: number,
  through: number[],
): Promise<Candidate[]> {
  const seen = new Set(walked.map((row) => row.id));
  const below = (await rankTiers(query, { through, below: tier })).rows;
  return [...walked, ...below.filter((row) => !seen.has(row.id))].sort(byRank).slice(0, query.limit);
}

/**
 * The pool filled up to `limit` with visible matches not read yet, any of them: each ranks below
 * the exact top (tieredTextCandidates), and stopping at the first ones found spares scoring every
 * match of a common word that few records repeat.
 */
async function topUp(query: TieredQuery, rows: Candidate[]): Promise<Candidate[]> {
  const { params, where, tsq, columns } = query.base();
  const more = await candidateRows(
    query.db,
    `SELECT ${query.select(params)}, ts_rank_cd(r.search_text, q.tsq) AS text_match${columns}
     FROM (SELECT ${tsq} AS tsq) q, ${textMatches(routeFilter(query.db, params, query.workspaceId, "t"))}
     WHERE ${where} AND r.id <> ALL(${params.add(rows.map((row) => row.id))}::uuid[])
     LIMIT ${params.add(query.limit - rows.length)}`,
    params.values,
  );
  return [...rows, ...more].sort(byRank);
}

/**
 * One statement: the best `limit` visible records of the common words' tiers, ranked by
 * ts_rank_cd, with the last round walked. Either walked a tier at a time for every word from the
 * highest down to the round where the counted matches first reach the limit (or the last), with
 * every record of the rare words; or, given `lower`, each word's tiers below `lower.below` down
 * to its own lowest (`lower.through`) as one round. Each tiered record is read, checked and
 * ranked once, as its round is walked; only the best `limit` are read again for their columns, by
 * the row address (ctid) the walk read them at: a TID scan, a sixth of a primary-key probe's time
 * (about 1 ms less for 200 rows on a 100k server). An address is the statement's own: its
 * snapshot sees the same row version there, however the row is updated meanwhile.
 */
async function rankTiers(
  query: TieredQuery,
  lower?: { through: number[]; below: number },
): Promise<{ rows: Candidate[]; round: number }> {
  const { words } = query;
  const { params, where, tsq, columns } = query.base();
  const read = TIERS.flatMap((tier, i) =>
    words.common.flatMap((lexeme, w) =>
      lower && (tier < (lower.through[w] as number) || tier >= lower.below)
        ? []
        : [{ token: `${query.workspaceId}:${tier}:${lexeme}`, round: lower ? 1 : i + 1 }],
    ),
  );
  const tokens = read.map((r) => r.token);
  const rounds = read.map((r) => r.round);
  const tokenList = params.add(tokens);
  const roundList = params.add(rounds);
  const limit = params.add(query.limit);
  // A record in a tier holds a wanted word, so it matches unless an excluded term rules it out.
  const match = query.exclusions ? "AND r.search_text @@ q.tsq" : "";
  const route = routeFilter(query.db, params, query.workspaceId, "t");
  // The visible records of rounds first..last, each with its rank, read from the tier index
  // alone: the fence (OFFSET 0) keeps the planner from ANDing in the far larger bitmaps of the
  // workspace's other indexes.
  const ranked = (first: string, last: string) => `(SELECT count(*) AS n, array_agg(r.tid) AS tids,
      array_agg(r.seq) AS seqs, array_agg(ts_rank_cd(r.search_text, q.tsq)) AS ranks
    FROM (SELECT t.ctid AS tid, * FROM records t WHERE t.search_text IS NOT NULL
        AND engram_text_tiers(t.workspace_id, t.search_text) &&
          (SELECT array_agg(u.token) FROM unnest(${tokenList}::text[], ${roundList}::int[]) AS u(token, round)
           WHERE u.round BETWEEN ${first} AND ${last}) ${route}
      OFFSET 0) r, q
    WHERE ${where} ${match})`;
  const walk =
    lower === undefined
      ? `walk AS (
       SELECT 0 AS round, 0::bigint AS found, NULL::tid[] AS tids, NULL::bigint[] AS seqs, NULL::real[] AS ranks
       UNION ALL
       SELECT w.round + 1, w.found + s.n, s.tids, s.seqs, s.ranks
       FROM walk w, LATERAL ${ranked("w.round + 1", "w.round + 1")} s
       WHERE w.found < ${limit} AND w.round < ${TIERS.length}
     )`
      : `walk AS (SELECT 1 AS round, s.n AS found, s.tids, s.seqs, s.ranks FROM ${ranked("1", "1")} s)`;
  // Every record holding a rare word is read and ranked too, in the walk.
  const rare =
    !lower && words.rare.length > 0
      ? `UNION SELECT r.tid, r.seq, ts_rank_cd(r.search_text, q.tsq)
       FROM (SELECT t.ctid AS tid, * FROM records t WHERE t.search_text @@ ${params.add(anyLexemeQuery(words.rare))}::tsquery
         ${route} OFFSET 0) r, q
       WHERE ${where} ${match}`
      : "";
  // DISTINCT and UNION: a record in several rounds (one per word) or also rare is one candidate
  // (one address: the statement reads one version of each row).
  const rows = await candidateRows<Candidate & { walked_round: number }>(
    query.db,
    `WITH RECURSIVE q AS (SELECT ${tsq} AS tsq), ${walk},
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
    // No row read: the walk went through every tier.
    round: rows[0] ? Number(rows[0].walked_round) : TIERS.length,
  };
}
