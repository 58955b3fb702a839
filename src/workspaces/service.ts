import { rememberInstall } from "../catalog/index.js";
import type { Db, Queryable } from "../platform/db/index.js";
import { AppError } from "../platform/errors.js";
import type { Workspace } from "../platform/workspace.js";
import { createCounters, deleteWorkspaceMarks } from "../records/index.js";
import { deleteWorkspaceJobs } from "../worker/index.js";
import { noteKeyUse } from "./key-use.js";
import { isWellFormedKey, keyDigest } from "./keys.js";
import * as sql from "./sql.js";
import { insertKey, type KeyScope } from "./workspace-keys.js";

export interface WorkspaceSummary extends Workspace {
  created_at: Date;
}

export interface CreatedWorkspace {
  workspace: string;
  id: string;
  created_at: Date;
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

/** A new workspace and its first key (named default, scope admin: it manages the others). */
export async function createWorkspace(db: Db, name: string): Promise<CreatedWorkspace> {
  return db.transaction((tx) => insertWorkspace(tx, name));
}

/** createWorkspace inside the caller's transaction (an import that may yet be refused). */
export async function insertWorkspace(tx: Queryable, name: string): Promise<CreatedWorkspace> {
  validateWorkspaceName(name);
  const { rows } = await tx.query<WorkspaceSummary>(sql.INSERT_WORKSPACE, [name]);
  const row = rows[0];
  if (!row) throw new AppError("workspace_exists", `workspace "${name}" already exists`);
  await createCounters(tx, row.id);
  const key = await insertKey(tx, row, { scope: "admin" });
  return { workspace: row.name, id: row.id, created_at: row.created_at, api_key: key.api_key };
}

/** The workspace of that name, or a not_found refusal naming it (operator commands). */
export async function requireWorkspaceByName(db: Queryable, name: string): Promise<WorkspaceSummary> {
  const workspace = await findWorkspaceByName(db, name);
  if (!workspace) throw new AppError("not_found", `no workspace named "${name}"`);
  return workspace;
}

/**
 * Removes a workspace and, by cascade, everything it owns, with its keys' uses, its records' access
 * marks and its jobs; its keys answer 401 from the next request. False when there was none.
 */
export async function deleteWorkspace(db: Db, id: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    await tx.query(sql.DELETE_WORKSPACE_KEY_USES, [id]);
    const { rows } = await tx.query(sql.DELETE_WORKSPACE, [id]);
    await deleteWorkspaceMarks(tx, id);
    await deleteWorkspaceJobs(tx, id);
    return rows.length > 0;
  });
}

export async function listWorkspaces(db: Queryable): Promise<WorkspaceSummary[]> {
  return (await db.query<WorkspaceSummary>(sql.LIST_WORKSPACES)).rows;
}

/** A page of workspaces in name order after the name `after` (GET /admin/workspaces). */
export async function workspacesPage(
  db: Queryable,
  page: { limit: number; after?: string },
): Promise<{ workspaces: WorkspaceSummary[]; next_after: string | null }> {
  const { rows } = await db.query<WorkspaceSummary>(sql.WORKSPACES_PAGE, [
    page.after ?? null,
    page.limit + 1,
  ]);
  const workspaces = rows.slice(0, page.limit);
  return { workspaces, next_after: rows.length > page.limit ? (workspaces.at(-1)?.name ?? null) : null };
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

/** A request's key as the request sees it (never the key itself). */
export interface RequestKey {
  id: string;
  name: string;
  scope: KeyScope;
  expires_at: Date | null;
}

/** Who a request's key speaks for, and what it may do. */
export interface KeyHolder {
  workspace: Workspace;
  key: RequestKey;
}

interface KeyRow extends Workspace {
  key_id: string;
  key_name: string;
  scope: KeyScope;
  expires_at: Date | null;
  last_used_at: Date | null;
  catalog_install_id?: string | null;
}

/**
 * The workspace and scope a live key selects, or undefined (unknown, revoked or expired at `now`).
 * The key is compared by looking up its digest (an index probe), never character by character,
 * so timing reveals nothing about it. Nothing is cached: a revocation holds from the next request
 * on. Every request asks it, so it runs prepared, and reads the workspace's active catalog install
 * too, which the request's first catalog check then takes instead of reading it again.
 */
export async function authenticate(
  db: Pick<Db, "queryRepeated" | "distributed" | "query">,
  key: string,
  now: number = Date.now(),
): Promise<KeyHolder | undefined> {
  if (!isWellFormedKey(key)) return undefined;
  const { rows } = await db.queryRepeated<KeyRow>(
    db.distributed ? sql.FIND_WORKSPACE_BY_KEY_DIGEST : sql.FIND_BY_KEY_DIGEST,
    [keyDigest(key)],
  );
  const row = rows[0];
  if (!row || (row.expires_at !== null && row.expires_at.getTime() <= now)) return undefined;
  if (row.catalog_install_id !== undefined) rememberInstall(db, row.id, row.catalog_install_id);
  noteKeyUse(db, row.key_id, row.last_used_at, now);
  return {
    workspace: { id: row.id, name: row.name },
    key: { id: row.key_id, name: row.key_name, scope: row.scope, expires_at: row.expires_at },
  };
}
