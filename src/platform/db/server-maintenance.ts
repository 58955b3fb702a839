// Whether a PostgreSQL server vacuums and analyzes Engram's tables itself. Engram runs that
// maintenance only on PGlite (pglite-maintenance.ts), which has no autovacuum. On a server it
// relies on autovacuum: enrichment gives every record a new row version, so without it the
// tables and their indexes bloat for good, and the planner's statistics (which text search also
// reads, src/search/text-tiers.ts) go stale. Said once at startup.
import { AUTOVACUUM_SETTINGS } from "./sql.js";
import type { Db } from "./types.js";

/** Warnings about a server that will not maintain Engram's tables (none on PGlite). */
export async function maintenanceWarnings(db: Db): Promise<string[]> {
  if (db.kind !== "postgres") return [];
  const { rows } = await db.query<{ autovacuum: boolean; track_counts: boolean; disabled: string[] }>(
    AUTOVACUUM_SETTINGS,
  );
  const row = rows[0];
  if (!row) return [];
  const advice = "vacuum and analyze will not run; tables bloat and statistics go stale";
  const warnings: string[] = [];
  if (!row.autovacuum || !row.track_counts) {
    const settings = `autovacuum=${row.autovacuum ? "on" : "off"}, track_counts=${row.track_counts ? "on" : "off"}`;
    warnings.push(`autovacuum is off on this server (${settings}): ${advice}`);
  }
  if (row.disabled.length > 0)
    warnings.push(`autovacuum is disabled on table ${row.disabled.join(", ")}: ${advice}`);
  return warnings;
}
