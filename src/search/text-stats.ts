// ANALYZE's element statistics that the text tiers plan their reads by (text-tiers.ts): how many
// records hold a lexeme (records.search_text), and how many hold it a tier's number of times (the
// tier index's tokens, migration 0015). Estimates decide what is read, never what is exact.
import type { Db } from "../platform/db/index.js";

/**
 * Element frequencies of an array-like column over all workspaces (over those of the workspace's
 * shard on Citus), and the rows they are shares of.
 */
export interface ElementStats {
  rows: number;
  frequency: Map<string, number>;
  /** An unlisted element is rarer than the least listed one. */
  least: number;
}

/** The estimated number of rows holding the element. */
export const estimate = (stats: ElementStats, element: string) =>
  stats.rows * (stats.frequency.get(element) ?? stats.least);

/**
 * The statistics of one relation's column, as JSON (no row when ANALYZE has not run). Both are
 * SQL expressions: parameters, or literals in a command sent to the shards.
 */
const statsJson = (relation: string, column: string) => `
  SELECT json_build_object('elems', s.most_common_elems::text::text[], 'freqs', s.most_common_elem_freqs,
    'rows', greatest(c.reltuples, 0)::float8)
  FROM (SELECT ${relation}::text AS name) t
  JOIN pg_class c ON c.oid = to_regclass(t.name)
  JOIN pg_stats s ON s.schemaname = current_schema() AND s.tablename = t.name AND s.attname = ${column}
  WHERE s.most_common_elems IS NOT NULL`;

/**
 * On Citus the statistics live with the shards (the coordinator's records is an empty shell):
 * each shard of records reports its own, run where the shard is. `%s` (once: the command is a
 * format string) is the shard's table; the tier index of a shard is named after it.
 */
const SHARD_STATS =
  "SELECT shardid, result FROM run_command_on_shards('records', $1) WHERE success AND result <> ''";
const shardCommand = (column: string, index: boolean) =>
  statsJson(index ? "replace('%s', 'records_', 'records_text_tiers_')" : "'%s'", `'${column}'`);

const SHARD_OF = "SELECT get_shard_id_for_distribution_column('records', $1::uuid) AS shard";

interface StatsRow {
  elems: string[];
  freqs: number[];
  rows: number;
}

function toStats(row: StatsRow | undefined): ElementStats | undefined {
  if (!row || row.elems.length === 0) return undefined;
  // The frequencies are followed by their minimum, maximum and null share: take one per element.
  const freqs = row.freqs.slice(0, row.elems.length).map(Number);
  return {
    rows: Number(row.rows),
    frequency: new Map(row.elems.map((elem, i) => [elem, freqs[i] as number])),
    least: Math.min(...freqs),
  };
}

/** Statistics change only when ANALYZE runs: read them at most once a minute per database. */
const STATS_TTL_MS = 60_000;
const MAX_CACHED = 10_000;
const statsCache = new WeakMap<Db, Map<string, { at: number; value: Promise<unknown> }>>();

/** The value under key, loaded at most once a minute per database (a failed load counts as none). */
function cached<T>(db: Db, key: string, load: () => Promise<T>): Promise<T | undefined> {
  const perDb = statsCache.get(db) ?? new Map();
  statsCache.set(db, perDb);
  const hit = perDb.get(key);
  if (hit && performance.now() - hit.at < STATS_TTL_MS) return hit.value as Promise<T | undefined>;
  const value = load().catch(() => undefined);
  // Keys grow with the workspaces searched (their shards on Citus): expired ones go past a bound.
  if (perDb.size >= MAX_CACHED) {
    for (const [old, entry] of perDb) if (performance.now() - entry.at >= STATS_TTL_MS) perDb.delete(old);
  }
  perDb.set(key, { at: performance.now(), value });
  return value;
}

async function elementStats(
  db: Db,
  workspaceId: string,
  relation: string,
  column: string,
): Promise<ElementStats | undefined> {
  if (!db.distributed) {
    return cached(db, `${relation}.${column}`, async () => {
      const { rows } = await db.query<{ stats: StatsRow }>(`SELECT (${statsJson("$1", "$2")}) AS stats`, [
        relation,
        column,
      ]);
      return toStats(rows[0]?.stats ?? undefined);
    });
  }
  const [shards, shard] = await Promise.all([
    cached(db, `shards:${relation}.${column}`, async () => {
      const { rows } = await db.query<{ shardid: number; result: string }>(SHARD_STATS, [
        shardCommand(column, relation !== "records"),
      ]);
      return new Map(rows.map((row) => [Number(row.shardid), toStats(JSON.parse(row.result) as StatsRow)]));
    }),
    // A workspace's shard changes only when shards are split: kept as long as the statistics.
    cached(db, `shard:${workspaceId}`, async () =>
      Number((await db.query<{ shard: number }>(SHARD_OF, [workspaceId])).rows[0]?.shard),
    ),
  ]);
  return shard === undefined ? undefined : shards?.get(shard);
}

/** Lexeme frequencies of records.search_text (of the workspace's shard on Citus). */
export const lexemeStats = (db: Db, workspaceId: string) =>
  elementStats(db, workspaceId, "records", "search_text");

/** Frequencies of the tier tokens ('workspace:tier:lexeme'), from the tier index's statistics. */
export const tierStats = (db: Db, workspaceId: string) =>
  elementStats(db, workspaceId, "records_text_tiers", "engram_text_tiers");
