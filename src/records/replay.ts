// Pull-based change delivery: GET /delta returns rows after the consumer's cursor, ascending by
// seq; POST /cursor moves the cursor forward once the consumer applied a page.
import type { Db, Queryable } from "../platform/db/index.js";
import { AppError, validationError } from "../platform/errors.js";
import { hashJson } from "../platform/hash.js";
import { lastSeq } from "./insert.js";
import * as sql from "./sql.js";

export interface DeltaScope {
  entity: string | null;
  collection: string | null;
  status: "active" | "draft" | "all";
  includeSystem: boolean;
}

/** The 64-character hash that ties a cursor position to the filters it was read with. */
export function scopeHash(scope: DeltaScope): string {
  return hashJson({
    entity: scope.entity,
    collection: scope.collection,
    status: scope.status,
    include_system: scope.includeSystem,
  });
}

interface CursorRow {
  consumer: string;
  entity: string | null;
  position: number;
  scope_hash: string;
  updated_at: Date;
}

export async function delta(
  db: Queryable,
  workspaceId: string,
  q: { consumer: string; scope: DeltaScope; limit: number },
) {
  const hash = scopeHash(q.scope);
  const cursor = (await db.query<CursorRow>(sql.GET_CURSOR, [workspaceId, q.consumer])).rows[0];
  if (cursor && cursor.scope_hash !== hash) {
    throw new AppError(
      "cursor_scope",
      `consumer "${q.consumer}" was read with other filters; use a new consumer name or POST /cursor with force true`,
      { scope_hash: cursor.scope_hash },
    );
  }
  const position = cursor?.position ?? 0;
  const { rows } = await db.query<{ seq: number }>(sql.DELTA, [
    workspaceId,
    q.scope.entity,
    q.scope.collection === null ? null : [q.scope.collection],
    null,
    q.scope.status === "all" ? null : q.scope.status,
    q.scope.includeSystem,
    position,
    q.limit,
  ]);
  return { records: rows, next_cursor: rows[rows.length - 1]?.seq ?? position, scope_hash: hash };
}

export interface CursorUpdate {
  consumer: string;
  entity: string | null;
  position: number;
  scopeHash: string;
  force: boolean;
}

/** Monotonic: a lower position or another scope is refused unless force resets the consumer. */
export async function moveCursor(db: Db, workspaceId: string, update: CursorUpdate) {
  return db.transaction(async (tx) => {
    const newest = await lastSeq(tx, workspaceId);
    if (update.position > newest) {
      throw validationError(`position ${update.position} is beyond the newest seq ${newest}`, [
        { path: "position", message: `must be at most ${newest}` },
      ]);
    }
    const stored = (await tx.query<CursorRow>(sql.LOCK_CURSOR, [workspaceId, update.consumer])).rows[0];
    if (stored && !update.force) {
      if (stored.scope_hash !== update.scopeHash) {
        throw new AppError(
          "cursor_scope",
          "the scope hash differs from the consumer's; use a new consumer or force",
          {
            scope_hash: stored.scope_hash,
          },
        );
      }
      if (update.position < stored.position) {
        throw new AppError(
          "cursor_regression",
          `position ${update.position} is below the stored ${stored.position}`,
          {
            position: stored.position,
          },
        );
      }
    }
    const { rows } = await tx.query<CursorRow>(sql.UPSERT_CURSOR, [
      workspaceId,
      update.consumer,
      update.entity,
      update.position,
      update.scopeHash,
    ]);
    return rows[0] as CursorRow;
  });
}
