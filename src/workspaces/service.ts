import { rememberInstall } from "../catalog/index.js";
import type { Db, Queryable } from "../platform/db/index.js";
import { AppError } from "../platform/errors.js";
import { generateKey, isWellFormedKey, keyDigest } from "./keys.js";
import * as sql from "./sql.js";

export interface Workspace {
  id: string;
  name: string;
}

export interface WorkspaceSummary extends Workspace {
  created_at: Date;
}

export interface CreatedWorkspace {
  workspace: string;
  id: string;
  /** Shown once; only its digest is stored. */
  api_key: string;
}

// Names appear in URLs, logs and shell commands: keep them plain.
const NAME_FORMAT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function validateWorkspaceName(name: string): void {
  if (!NAME_FORMAT.test(name)) {
    throw new AppError(
      "request_schema",
      `invalid workspace name "${name}": use 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit`,
    );
  }
}

export async function createWorkspace(db: Db, name: string): Promise<CreatedWorkspace> {
  validateWorkspaceName(name);
  const apiKey = generateKey();
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<WorkspaceSummary>(sql.INSERT_WORKSPACE, [name, keyDigest(apiKey)]);
    const row = rows[0];
    if (!row) throw new AppError("workspace_exists", `workspace "${name}" already exists`);
    await tx.query(sql.INSERT_COUNTER, [row.id]);
    return { workspace: row.name, id: row.id, api_key: apiKey };
  });
}

/** Removes a workspace and, by cascade, everything it owns, then its records' access marks and its jobs. */
export async function deleteWorkspace(db: Db, id: string): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query(sql.DELETE_WORKSPACE, [id]);
    await tx.query(sql.DELETE_WORKSPACE_MARKS, [id]);
    await tx.query(sql.DELETE_WORKSPACE_JOBS, [id]);
  });
}

export async function listWorkspaces(db: Queryable): Promise<WorkspaceSummary[]> {
  return (await db.query<WorkspaceSummary>(sql.LIST_WORKSPACES)).rows;
}

export async function countWorkspaces(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ count: number }>(sql.COUNT_WORKSPACES);
  return rows[0]?.count ?? 0;
}

export async function findWorkspaceByName(
  db: Queryable,
  name: string,
): Promise<WorkspaceSummary | undefined> {
  return (await db.query<WorkspaceSummary>(sql.FIND_BY_NAME, [name])).rows[0];
}

/**
 * The workspace a key selects, or undefined. The key is compared by looking up its digest
 * (an index probe), never character by character, so timing reveals nothing about it. Every
 * request asks it, so it runs prepared, and reads the workspace's active catalog install too,
 * which the request's first catalog check then takes instead of reading it again.
 */
export async function authenticate(
  db: Pick<Db, "queryRepeated" | "distributed">,
  key: string,
): Promise<Workspace | undefined> {
  if (!isWellFormedKey(key)) return undefined;
  const { rows } = await db.queryRepeated<Workspace & { catalog_install_id?: string | null }>(
    db.distributed ? sql.FIND_WORKSPACE_BY_KEY_DIGEST : sql.FIND_BY_KEY_DIGEST,
    [keyDigest(key)],
  );
  const row = rows[0];
  if (!row) return undefined;
  if (row.catalog_install_id !== undefined) rememberInstall(db, row.id, row.catalog_install_id);
  return { id: row.id, name: row.name };
}
