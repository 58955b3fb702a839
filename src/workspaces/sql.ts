import { activeInstallSql } from "../catalog/index.js";

export const INSERT_WORKSPACE = `
  INSERT INTO workspaces (name, key_digest) VALUES ($1, decode($2, 'hex'))
  ON CONFLICT (name) DO NOTHING
  RETURNING id, name, created_at`;

export const LIST_WORKSPACES = "SELECT id, name, created_at FROM workspaces ORDER BY name";

export const COUNT_WORKSPACES = "SELECT count(*)::int AS count FROM workspaces";

export const FIND_BY_NAME = "SELECT id, name, created_at FROM workspaces WHERE name = $1";

/** The key's workspace, and the catalog install active in it (for the request's first check). */
export const FIND_BY_KEY_DIGEST = `SELECT w.id, w.name, ${activeInstallSql("w.id")} AS catalog_install_id
  FROM workspaces w WHERE w.key_digest = decode($1, 'hex')`;

export const DELETE_WORKSPACE = "DELETE FROM workspaces WHERE id = $1";
/** Access marks hold no foreign key (migration 0017): they go after the workspace's records. */
export const DELETE_WORKSPACE_MARKS = "DELETE FROM record_access WHERE workspace_id = $1";
