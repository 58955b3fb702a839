// SQL of the term statistics (text-stats.ts): the upsert that adds or subtracts records'
// contributions, composed by applySql from the records it counts, and the one-time build's
// statements.

/** The empty lexeme's row holds the totals: records counted, and their lexeme occurrences. */
export const TOTALS_LEXEME = "";

const SEARCHABLE = `r.ready AND NOT r.tombstone AND r.search_text IS NOT NULL AND r.search_config IS NOT NULL`;

/**
 * A keyed record is current while its slot's head names it: a primary-key probe per record, as a
 * scalar subquery (an EXISTS under the OR became a hashed subplan reading every head of the
 * workspace, as in search's filters).
 */
const headIsRecord = (lock: string) => `(SELECT h.record_id FROM heads h WHERE h.workspace_id = $1
  AND h.entity = r.entity AND h.collection = r.collection AND h.key = r.key AND h.status = r.status
  ${lock}) = r.id`;

const BUILT = "(SELECT c.text_stats_built FROM workspace_counters c WHERE c.workspace_id = $1)";

/**
 * Adds (sign 1) or subtracts (-1) the contributions of the records `counted` selects, in one
 * upsert whose rows go in (config, lexeme) order: concurrent counts of a workspace lock its rows
 * in one order.
 */
const applySql = (counted: string, sign: 1 | -1) => `
  WITH counted AS (${counted})
  INSERT INTO text_stats AS s (workspace_id, config, lexeme, docs, occurrences)
  SELECT $1, d.config, d.lexeme, ${sign} * d.docs, ${sign} * d.occurrences FROM (
    SELECT c.search_config AS config, u.lexeme, count(*) AS docs,
      sum(greatest(cardinality(u.positions), 1)) AS occurrences
    FROM counted c, unnest(c.search_text) AS u GROUP BY 1, 2
    UNION ALL
    SELECT c.search_config, '${TOTALS_LEXEME}', count(*), sum(c.search_length) FROM counted c GROUP BY 1) d
  ORDER BY d.config, d.lexeme
  ON CONFLICT (workspace_id, config, lexeme)
    DO UPDATE SET docs = s.docs + excluded.docs, occurrences = s.occurrences + excluded.occurrences
  RETURNING s.config, s.lexeme, s.docs`;

export const COUNT_SEARCHABLE = applySql(
  `SELECT r.search_text, r.search_length, r.search_config FROM records r
   WHERE r.workspace_id = $1 AND r.id = ANY($2::uuid[]) AND ${SEARCHABLE}
     AND (r.key IS NULL OR ${headIsRecord("FOR SHARE")}) AND ${BUILT}`,
  1,
);

/** Uncounts: `current` keeps records still current only; `lock` waits for their writers first. */
export const uncountSql = (current: boolean, lock: boolean) =>
  applySql(
    `SELECT r.search_text, r.search_length, r.search_config FROM records r
     WHERE r.workspace_id = $1 AND r.id = ANY($2::uuid[]) AND ${SEARCHABLE}
       ${current ? `AND (r.key IS NULL OR ${headIsRecord("")})` : ""} AND ${BUILT}
     ${lock ? "FOR UPDATE OF r" : ""}`,
    -1,
  );

/** Lexemes no searchable record holds any more are forgotten (an erased name leaves no row). */
export const DROP_EMPTY_LEXEMES = `
  DELETE FROM text_stats WHERE workspace_id = $1 AND docs <= 0 AND lexeme <> '${TOTALS_LEXEME}'
    AND (config, lexeme) IN (SELECT * FROM unnest($2::text[], $3::text[]))`;

export const REBUILD_TEXT_STATS = applySql(
  `SELECT r.search_text, r.search_length, r.search_config FROM records r
   WHERE r.workspace_id = $1 AND ${SEARCHABLE}
     AND (r.key IS NULL OR ${headIsRecord("")})`,
  1,
);

/** Whether the workspace's statistics are built (migration 0021 left older workspaces without). */
export const TEXT_STATS_BUILT = `SELECT ${BUILT} AS built`;

/** The build locks every unready record: no enrichment counts (or skips counting) meanwhile. */
export const LOCK_UNREADY = "SELECT 1 FROM records WHERE workspace_id = $1 AND NOT ready FOR UPDATE";

/** Collection versions ($2: the system collection left out) with records lacking a text configuration. */
export const UNCONFIGURED_COLLECTIONS = `SELECT DISTINCT collection, collection_version AS version FROM records
       WHERE workspace_id = $1 AND search_text IS NOT NULL AND search_config IS NULL AND collection <> $2`;

/** Such records take their collection's configuration ($4). */
export const SET_SEARCH_CONFIG = `UPDATE records SET search_config = $4 WHERE workspace_id = $1 AND collection = $2
           AND collection_version = $3 AND search_text IS NOT NULL AND search_config IS NULL`;

/** The build starts from nothing. */
export const CLEAR_TEXT_STATS = "DELETE FROM text_stats WHERE workspace_id = $1";

/** ...and, once rebuilt, the workspace's statistics are kept up by every write. */
export const MARK_TEXT_STATS_BUILT =
  "UPDATE workspace_counters SET text_stats_built = true WHERE workspace_id = $1";
