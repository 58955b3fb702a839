// A workspace's catalog installs as rows, for engram export and import (docs/export.md): the
// catalog owns catalog_installs, so the portability module reads and restores them through here.
import type { Queryable } from "../../platform/db/index.js";
import * as sql from "./sql.js";

/** Every install of the workspace with its files, oldest first, as export writes them. */
export async function installRows(db: Queryable, workspaceId: string): Promise<unknown[]> {
  const { rows } = await db.query<{ installs: string }>(sql.CATALOG_INSTALLS, [workspaceId]);
  return JSON.parse(rows[0]?.installs ?? "[]");
}

/** An export's installs restored into the workspace as they were: ids, activity, install times. */
export async function restoreInstalls(
  db: Queryable,
  workspaceId: string,
  installs: readonly object[],
): Promise<void> {
  await db.query(sql.RESTORE_INSTALLS, [workspaceId, JSON.stringify(installs)]);
}
