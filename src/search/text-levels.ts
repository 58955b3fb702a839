// The exact text top when the tiers cannot bound it (issue 20). Once every common word's tiers
// have been read down to 2 (and every record of a rare word), a record not read holds each
// common word at most once and no rare word, so it ranks 0.1 times the number of distinct common
// words it holds: one of a few levels. Instead of scoring every match (tens of thousands of
// rows for a common word, far more at a million records), the levels are read from the highest
// down: the records holding at least d of the words (a conjunction the full-text index answers
// without reading the others), then, at the lowest level, where every record left ranks the
// same, the newest matches, until the k-th best found ranks above the next level.
import { candidateRows, type Params, routeFilter } from "./sql.js";
import { anyLexemeQuery, atLeastQuery, byRank, PER_OCCURRENCE, RANK_SLACK } from "./text-rank.js";
import type { TieredQuery } from "./text-tiers.js";
import type { Candidate } from "./types.js";

/**
 * At most this many conjunctions in one level's tsquery: beyond it (many common words halfway
 * down) the caller scores every match instead.
 */
const MAX_CONJUNCTIONS = 64;

/** What the levels found: best first, at most `limit`; `every`: no visible match is left out. */
export interface Levels {
  rows: Candidate[];
  every: boolean;
}

/**
 * The exact top `exact` from the records read so far (`read`: every common word's tiers down to
 * 2 and every rare word's records, best first, at most `limit` of them), and the levels below
 * them; undefined when a level would take too many conjunctions. When the lowest level is read
 * and answers fewer than k, every visible match not found before is in it: with fewer than
 * `limit` found, there is nothing left to top the pool up with.
 */
export async function completeByLevels(query: TieredQuery, read: Candidate[]): Promise<Levels | undefined> {
  const k = Math.min(query.exact, query.limit);
  const common = query.words.common;
  let found = read;
  let every = false;
  // Before level d, every record not found ranks at most d occurrences: unread ones hold at most
  // d distinct words once each, and read ones that the limit cut rank below the limit-th.
  for (let level = common.length; level >= 1; level--) {
    const kth = found[k - 1];
    if (kth && Number(kth.text_match) > PER_OCCURRENCE * level + RANK_SLACK) break;
    const more =
      level > 1 ? await holdingAtLeast(query, level, found, k) : await newestMatches(query, found, k);
    if (!more) return undefined;
    // A level that answers fewer than k has given all its records; one that answers k has put
    // the k-th found at its level or above, over every record of the levels below.
    found = [...found, ...more].sort(byRank);
    every = level === 1 && more.length < k;
  }
  return { rows: found.slice(0, query.limit), every };
}

/** The statement's shared parts: parameters, visibility, tsquery, and the ids already found. */
function statementBase(query: TieredQuery, found: Candidate[]) {
  const { params, where, tsq, columns } = query.base();
  const notFound = `r.id <> ALL(${params.add(found.map((c) => c.id))}::uuid[])`;
  return { params, where: `${where} AND r.search_text @@ q.tsq AND ${notFound}`, tsq, columns };
}

async function select(query: TieredQuery, sql: string, params: Params): Promise<Candidate[]> {
  return candidateRows(query.db, sql, params.values);
}

/**
 * The best k records not found that hold at least `count` of the common words, read through the
 * full-text index alone (fenced: a filter's bitmap would be far larger than the conjunction's).
 */
async function holdingAtLeast(
  query: TieredQuery,
  count: number,
  found: Candidate[],
  k: number,
): Promise<Candidate[] | undefined> {
  const conjunctions = atLeastQuery(query.words.common, count, MAX_CONJUNCTIONS);
  if (!conjunctions) return undefined;
  const { params, where, tsq, columns } = statementBase(query, found);
  return select(
    query,
    `SELECT ${query.select(params)}, ts_rank_cd(r.search_text, q.tsq) AS text_match${columns}
     FROM (SELECT ${tsq} AS tsq) q,
       LATERAL (SELECT * FROM records t WHERE t.search_text @@ ${params.add(conjunctions)}::tsquery
         ${routeFilter(query.db, params, query.workspaceId, "t")} OFFSET 0) r
     WHERE ${where}
     ORDER BY text_match DESC, r.seq DESC LIMIT ${params.add(k)}`,
    params,
  );
}

/**
 * The newest k matches not found: at the lowest level every one of them ranks the same (one
 * occurrence), so no match is scored to order them. The tsquery of the wanted words is written
 * out for the planner, which walks the workspace's records newest first when the words are
 * common and reads the full-text index when they are not.
 */
async function newestMatches(query: TieredQuery, found: Candidate[], k: number): Promise<Candidate[]> {
  const { params, where, tsq, columns } = statementBase(query, found);
  const wanted = anyLexemeQuery([...query.words.common, ...query.words.rare]);
  return select(
    query,
    `SELECT ${query.select(params)}, ts_rank_cd(r.search_text, q.tsq) AS text_match${columns}
     FROM (SELECT ${tsq} AS tsq) q, records r
     WHERE ${where} AND r.search_text @@ ${params.add(wanted)}::tsquery
     ORDER BY r.seq DESC LIMIT ${params.add(k)}`,
    params,
  );
}
