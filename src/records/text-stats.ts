// Per-workspace term statistics for BM25 (migration 0021, docs/operations.md "Search internals"): for each
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
import * as sql from "./text-stats-sql.js";
import { SYSTEM_COLLECTION } from "./validate.js";

/** Counts those of `ids` that are searchable now (they just turned ready, or became heads again). */
export async function countSearchable(tx: Queryable, workspaceId: string, ids: string[]): Promise<void> {
  if (ids.length > 0) await tx.query(sql.COUNT_SEARCHABLE, [workspaceId, ids]);
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
    sql.uncountSql(options.current, options.lock ?? false),
    [workspaceId, ids],
  );
  const empty = rows.filter((row) => Number(row.docs) <= 0 && row.lexeme !== sql.TOTALS_LEXEME);
  if (empty.length > 0) {
    await tx.query(sql.DROP_EMPTY_LEXEMES, [
      workspaceId,
      empty.map((row) => row.config),
      empty.map((row) => row.lexeme),
    ]);
  }
}

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
    const { rows } = await tx.query<{ built: boolean }>(sql.TEXT_STATS_BUILT, [workspaceId]);
    if (rows[0]?.built !== false) return false;
    await tx.query(sql.LOCK_UNREADY, [workspaceId]);
    const { rows: collections } = await tx.query<{ collection: string; version: number }>(
      sql.UNCONFIGURED_COLLECTIONS,
      [workspaceId, SYSTEM_COLLECTION],
    );
    for (const { collection, version } of collections) {
      const def = catalog.index.collections.get(`${collection}@${version}`)?.def;
      if (!def) continue;
      await tx.query(sql.SET_SEARCH_CONFIG, [workspaceId, collection, version, textConfig(catalog, def)]);
    }
    await tx.query(sql.CLEAR_TEXT_STATS, [workspaceId]);
    await tx.query(sql.REBUILD_TEXT_STATS, [workspaceId]);
    await tx.query(sql.MARK_TEXT_STATS_BUILT, [workspaceId]);
    return true;
  });
}
