// ANALYZE's element statistics that the text tiers plan their reads by (text-tiers.ts): how many
// records hold a lexeme (records.search_text), and how many hold it a tier's number of times (the
// tier index's tokens, migration 0015). Estimates decide what is read, never what is exact.
import type { Db } from "../platform/db/index.js";

/** Element frequencies of an array-like column over all workspaces, and the rows they are shares of. */
export interface ElementStats {
  rows: number;
  frequency: Map<string, number>;
  /** An unlisted element is rarer than the least listed one. */
  least: number;
}

/** The estimated number of rows holding the element. */
export const estimate = (stats: ElementStats, element: string) =>
  stats.rows * (stats.frequency.get(element) ?? stats.least);

const ELEMENT_STATS = `
  SELECT s.most_common_elems::text::text[] AS elems, s.most_common_elem_freqs AS freqs,
    greatest(c.reltuples, 0)::float8 AS rows
  FROM pg_stats s JOIN pg_class c ON c.oid = to_regclass($1)
  WHERE s.schemaname = current_schema() AND s.tablename = $1 AND s.attname = $2
    AND s.most_common_elems IS NOT NULL`;

/** Statistics change only when ANALYZE runs: read them at most once a minute per database. */
const STATS_TTL_MS = 60_000;
const statsCache = new WeakMap<Db, Map<string, { at: number; stats: Promise<ElementStats | undefined> }>>();

async function loadElementStats(db: Db, relation: string, column: string): Promise<ElementStats | undefined> {
  const { rows } = await db.query<{ elems: string[]; freqs: number[]; rows: number }>(ELEMENT_STATS, [
    relation,
    column,
  ]);
  const row = rows[0];
  if (!row || row.elems.length === 0) return undefined;
  // The frequencies are followed by their minimum, maximum and null share: take one per element.
  const freqs = row.freqs.slice(0, row.elems.length).map(Number);
  return {
    rows: Number(row.rows),
    frequency: new Map(row.elems.map((elem, i) => [elem, freqs[i] as number])),
    least: Math.min(...freqs),
  };
}

function elementStats(db: Db, relation: string, column: string): Promise<ElementStats | undefined> {
  const key = `${relation}.${column}`;
  const perDb = statsCache.get(db) ?? new Map();
  statsCache.set(db, perDb);
  const cached = perDb.get(key);
  if (cached && performance.now() - cached.at < STATS_TTL_MS) return cached.stats;
  const stats = loadElementStats(db, relation, column).catch(() => undefined);
  perDb.set(key, { at: performance.now(), stats });
  return stats;
}

/** Lexeme frequencies of records.search_text. */
export const lexemeStats = (db: Db) => elementStats(db, "records", "search_text");

/** Frequencies of the tier tokens ('workspace:tier:lexeme'), from the tier index's statistics. */
export const tierStats = (db: Db) => elementStats(db, "records_text_tiers", "engram_text_tiers");
