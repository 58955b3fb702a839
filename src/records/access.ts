// When a search last returned a record: the age_hours(last_accessed) rank signal, kept in
// record_access (migration 0016). Refreshed at most once a minute per record, since ranks read
// ages in hours and concurrent searches that return the same records would otherwise queue on
// each other's row locks.
import type { Db } from "../platform/db/index.js";
import * as sql from "./sql.js";

/** SQLSTATE foreign_key_violation: a hit was erased between the mark's read and its insert. */
const FOREIGN_KEY_VIOLATION = "23503";
const ATTEMPTS = 3;

export async function markAccessed(db: Db, workspaceId: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  const sorted = [...ids].sort();
  for (let attempt = 1; ; attempt++) {
    try {
      const { rowCount } = await db.query(sql.MARK_ACCESSED, [workspaceId, sorted]);
      db.noteWrites(rowCount);
      return;
    } catch (error) {
      // The next attempt's read no longer sees the erased record.
      if (attempt >= ATTEMPTS || (error as { code?: string }).code !== FOREIGN_KEY_VIOLATION) throw error;
    }
  }
}
