// SQL of the text walk (text-walk.ts says which cells it reads, in what rounds, and why each
// read is exact): the recursive read of cells a round at a time, the certificate's read of the
// records holding a pattern's words, and the top-up with other matches.

/** The filters of one walk statement over records r, its query's tsquery as q.tsq. */
export interface WalkFilter {
  /** The visibility and scope filters (filterSql). */
  where: string;
  /** A cell's record may still not match the query: it is checked against q.tsq. */
  check: boolean;
  /** The workspace filter a fenced read repeats on Citus (routeFilter), or nothing. */
  route: string;
}

const checked = (filter: WalkFilter) => (filter.check ? "AND r.search_text @@ q.tsq" : "");

/** The records whose cells share a token with the array parameter `tokens` (the cell index). */
export const cellsHoldSql = (tokens: string) =>
  `engram_text_cells(t.workspace_id, t.search_text) && (SELECT ${tokens}::text[])`;

/** Records holding every word of some pattern: each pattern's words' conditions ANDed, the patterns ORed. */
export const anyPatternSql = (patterns: string[][]) =>
  patterns.map((conditions) => `(${conditions.join(" AND ")})`).join(" OR ");

/**
 * The best `limit` visible records holding `any` pattern (cellsHoldSql, anyPatternSql) other than
 * the ids `read`, ranked by `score`, read through the cell index alone (the fence, OFFSET 0).
 */
export function holdingPatternsSql(
  filter: WalkFilter,
  parts: {
    any: string;
    select: string;
    score: string;
    signals: string;
    tsq: string;
    read: string;
    limit: string;
  },
): string {
  return `SELECT ${parts.select}, ${parts.score} AS text_match${parts.signals}
     FROM (SELECT ${parts.tsq} AS tsq) q,
       LATERAL (SELECT * FROM records t WHERE t.search_text IS NOT NULL AND (${parts.any}) ${filter.route} OFFSET 0) r
     WHERE ${filter.where} ${checked(filter)} AND r.id <> ALL(${parts.read}::uuid[])
     ORDER BY text_match DESC, r.seq DESC LIMIT ${parts.limit}`;
}

/** Up to `limit` visible matches (`matches`, textMatches) other than the ids `read`, any of them. */
export function topUpSql(parts: {
  select: string;
  score: string;
  signals: string;
  tsq: string;
  matches: string;
  where: string;
  read: string;
  limit: string;
}): string {
  return `SELECT ${parts.select}, ${parts.score} AS text_match${parts.signals}
     FROM (SELECT ${parts.tsq} AS tsq) q, ${parts.matches}
     WHERE ${parts.where} AND r.id <> ALL(${parts.read}::uuid[])
     LIMIT ${parts.limit}`;
}

/** What readCellsSql reads: the tokens in round order and where each round's start, and how far. */
export interface CellRounds {
  filter: WalkFilter;
  tsq: string;
  score: string;
  /** Round r's tokens are tokens[starts[r] : starts[r + 1] - 1] (both array parameters). */
  tokens: string;
  starts: string;
  lastRound: number;
  /** Matches counted before the first round (a parameter). */
  found: string;
  /** A walk stops once the counted matches reach `limit`; else every round is read. */
  walk: boolean;
  /** Each round stops at the matches the walk still needs (its `limit` less those counted). */
  cut: boolean;
  /** A tsquery parameter of the rare terms, whose every record is read beside the rounds. */
  rare: string | undefined;
  limit: string;
  select: string;
  signals: string;
  workspace: string;
}

/**
 * The visible records of one round, each with its rank, read from the cell index alone: the
 * fence (OFFSET 0) keeps the planner from ANDing in the far larger bitmaps of the workspace's other
 * indexes; stopped at `need` matches when given.
 */
function rankedRoundSql(read: CellRounds, round: string, need: string | undefined): string {
  return `(SELECT count(*) AS n,
      array_agg(x.tid) AS tids, array_agg(x.seq) AS seqs, array_agg(x.rank) AS ranks
    FROM (SELECT r.tid, r.seq, ${read.score} AS rank
      FROM (SELECT t.ctid AS tid, * FROM records t WHERE t.search_text IS NOT NULL
          AND engram_text_cells(t.workspace_id, t.search_text) &&
            (${read.tokens}::text[])[(${read.starts}::int[])[${round}] : (${read.starts}::int[])[${round} + 1] - 1] ${read.filter.route}
        OFFSET 0) r, q
      WHERE ${read.filter.where} ${checked(read.filter)} ${need ? `LIMIT ${need}` : ""}) x)`;
}

/**
 * One statement: the walk's rounds (a recursive term, so the planner reads the cell index whatever
 * the tokens), the rare terms' records beside them, and the best `limit` of both read again for
 * their columns by row address (ctid), with the last round read whole (`walked_round`: a round
 * cut at its need is not). DISTINCT and UNION: a record in several rounds (one per word) or also
 * rare is one candidate.
 */
export function readCellsSql(read: CellRounds): string {
  const need = read.cut ? `${read.limit} - w.found` : undefined;
  const rounds = `walk AS (
       SELECT 0 AS round, ${read.found}::bigint AS found, NULL::tid[] AS tids, NULL::bigint[] AS seqs,
         NULL::float8[] AS ranks, false AS cut
       UNION ALL
       SELECT w.round + 1, w.found + s.n, s.tids, s.seqs, s.ranks, ${need ? `s.n >= ${need}` : "false"}
       FROM walk w, LATERAL ${rankedRoundSql(read, "w.round + 1", need)} s
       WHERE ${read.walk ? `w.found < ${read.limit} AND ` : ""}w.round < ${read.lastRound}
     )`;
  const rare = read.rare
    ? `UNION SELECT r.tid, r.seq, ${read.score}
       FROM (SELECT t.ctid AS tid, * FROM records t WHERE t.search_text @@ ${read.rare}::tsquery
         ${read.filter.route} OFFSET 0) r, q
       WHERE ${read.filter.where} ${checked(read.filter)}`
    : "";
  return `WITH RECURSIVE q AS (SELECT ${read.tsq} AS tsq), ${rounds},
     best AS (
       SELECT DISTINCT u.tid, u.seq, u.rank FROM walk w, unnest(w.tids, w.seqs, w.ranks) AS u(tid, seq, rank)
       ${rare}
       ORDER BY rank DESC, seq DESC LIMIT ${read.limit})
     SELECT ${read.select}, b.rank AS text_match, (SELECT max(round) - bool_or(cut)::int FROM walk) AS walked_round${read.signals}
     FROM best b JOIN records r ON r.ctid = b.tid AND r.workspace_id = ${read.workspace}
     ORDER BY text_match DESC, r.seq DESC`;
}
