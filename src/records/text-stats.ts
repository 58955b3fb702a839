// Per-workspace term statistics for BM25 (migration 0021, CONVENTIONS.md "Relevance"): for each
// text search configuration, how many searchable records hold each lexeme, and how many
// searchable records there are with their total length (the row of the empty lexeme). A record
// is searchable when it is ready, not a tombstone, has a full-text vector, and is current
// (unkeyed, or its slot's head). Every change of that is counted in the transaction making it:
// - a record turning ready (written ready, enriched, a head restored by an erasure): counted if
//   current, its slot's head read FOR SHARE, so a writer moving that head either waits for the
//   count to commit and then uncounts it, or has committed and the count sees it is no longer
//   current;
// - a head moved by a write (under the seq lock): the old head uncounted after the move, from a
//   snapshot taken once the move had waited for any count of it;
// - an erasure and a reindex (under the seq lock): uncounted before, the erasure locking the rows
//   so that an enrichment of one of them commits first.
// Nothing here reads or writes another workspace's rows.
import type { InstalledCatalog } from "../catalog/index.js";
import type { Db, Queryable } from "../platform/db/index.js";
import { textConfig } from "./projection.js";
import { LOCK_SEQ } from "./sql.js";
import { SYSTEM_COLLECTION } from "./validate.js";

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

const COUNT = applySql(
  `SELECT r.search_text, r.search_length, r.search_config FROM records r
   WHERE r.workspace_id = $1 AND r.id = ANY($2::uuid[]) AND ${SEARCHABLE}
     AND (r.key IS NULL OR ${headIsRecord("FOR SHARE")}) AND ${BUILT}`,
  1,
);

/** Uncounts: `current` keeps records still current only; `lock` waits for their writers first. */
const uncountSql = (current: boolean, lock: boolean) =>
  applySql(
    `SELECT r.search_text, r.search_length, r.search_config FROM records r
     WHERE r.workspace_id = $1 AND r.id = ANY($2::uuid[]) AND ${SEARCHABLE}
       ${current ? `AND (r.key IS NULL OR ${headIsRecord("")})` : ""} AND ${BUILT}
     ${lock ? "FOR UPDATE OF r" : ""}`,
    -1,
  );

/** Lexemes no searchable record holds any more are forgotten (an erased name leaves no row). */
const DROP_EMPTY = `
  DELETE FROM text_stats WHERE workspace_id = $1 AND docs <= 0 AND lexeme <> '${TOTALS_LEXEME}'
    AND (config, lexeme) IN (SELECT * FROM unnest($2::text[], $3::text[]))`;

/** Counts those of `ids` that are searchable now (they just turned ready, or became heads again). */
export async function countSearchable(tx: Queryable, workspaceId: string, ids: string[]): Promise<void> {
  if (ids.length > 0) await tx.query(COUNT, [workspaceId, ids]);
}

/**
 * Uncounts those of `ids` that were counted: searchable, and (`current`) still current, else
 * (heads just moved away from them) current until now. `lock`: rows an enrichment may be
 * writing are waited for (an erasure's, taken before it deletes them).
 */
export async function uncountSearchable(
  tx: Queryable,
  workspaceId: string,
  ids: string[],
  options: { current: boolean; lock?: boolean },
): Promise<void> {
  if (ids.length === 0) return;
  const { rows } = await tx.query<{ config: string; lexeme: string; docs: number | string }>(
    uncountSql(options.current, options.lock ?? false),
    [workspaceId, ids],
  );
  const empty = rows.filter((row) => Number(row.docs) <= 0 && row.lexeme !== TOTALS_LEXEME);
  if (empty.length > 0) {
    await tx.query(DROP_EMPTY, [workspaceId, empty.map((row) => row.config), empty.map((row) => row.lexeme)]);
  }
}

const REBUILD = applySql(
  `SELECT r.search_text, r.search_length, r.search_config FROM records r
   WHERE r.workspace_id = $1 AND ${SEARCHABLE}
     AND (r.key IS NULL OR ${headIsRecord("")})`,
  1,
);

/**
 * Builds the statistics of a workspace whose records were written before they were kept
 * (migration 0021), once: under the seq lock, with every unready record locked so that no
 * enrichment counts (or skips counting) meanwhile; records without a configuration take their
 * collection's. Returns whether it built them (false: another session had).
 */
export async function buildTextStats(
  db: Db,
  workspaceId: string,
  catalog: InstalledCatalog,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    await tx.query(LOCK_SEQ, [workspaceId]);
    const { rows } = await tx.query<{ built: boolean }>(`SELECT ${BUILT} AS built`, [workspaceId]);
    if (rows[0]?.built !== false) return false;
    await tx.query("SELECT 1 FROM records WHERE workspace_id = $1 AND NOT ready FOR UPDATE", [workspaceId]);
    const { rows: collections } = await tx.query<{ collection: string; version: number }>(
      `SELECT DISTINCT collection, collection_version AS version FROM records
       WHERE workspace_id = $1 AND search_text IS NOT NULL AND search_config IS NULL AND collection <> $2`,
      [workspaceId, SYSTEM_COLLECTION],
    );
    for (const { collection, version } of collections) {
      const def = catalog.index.collections.get(`${collection}@${version}`)?.def;
      if (!def) continue;
      await tx.query(
        `UPDATE records SET search_config = $4 WHERE workspace_id = $1 AND collection = $2
           AND collection_version = $3 AND search_text IS NOT NULL AND search_config IS NULL`,
        [workspaceId, collection, version, textConfig(catalog, def)],
      );
    }
    await tx.query("DELETE FROM text_stats WHERE workspace_id = $1", [workspaceId]);
    await tx.query(REBUILD, [workspaceId]);
    await tx.query("UPDATE workspace_counters SET text_stats_built = true WHERE workspace_id = $1", [
      workspaceId,
    ]);
    return true;
  });
}
