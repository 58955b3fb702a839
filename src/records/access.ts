// When a search last returned a record: the age_hours(last_accessed) rank signal, kept in
// record_access (migrations 0016, 0017). Refreshed at most once a minute per record, since ranks
// read ages in hours and concurrent searches that return the same records would otherwise queue
// on each other's row locks.
import type { Db } from "../platform/db/index.js";
import * as sql from "./sql.js";

export async function markAccessed(db: Db, workspaceId: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  // Planned on each run, not prepared: a plan kept from when record_access was small probes it by
  // sequential scan as it grows (a 100k bench's first search mode: 6.8 ms a mark, not 1.3).
  const { rowCount } = await db.query(sql.markAccessedSql(!db.distributed), [workspaceId, ids]);
  db.noteWrites(rowCount, "record_access");
}
