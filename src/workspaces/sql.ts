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

/**
 * The workspace and its counts in one statement (one snapshot), GET /workspace: records and
 * entities outside _system (records_entity_names, index-only), unready records and the oldest
 * one's created_at (records_unready; _system rows are always ready), jobs by state
 * (jobs_state_recent, index-only). Counting is linear in the workspace's size, on indexes only.
 */
export const WORKSPACE_OVERVIEW = `
  SELECT w.id, w.name, w.created_at,
    (SELECT count(*)::int FROM records r WHERE r.workspace_id = w.id AND r.collection <> '_system') AS records,
    (SELECT count(*)::int FROM (SELECT DISTINCT r.entity COLLATE "C" FROM records r
      WHERE r.workspace_id = w.id AND r.collection <> '_system') e) AS entities,
    (SELECT count(*)::int FROM records r WHERE r.workspace_id = w.id AND NOT r.ready) AS unready,
    (SELECT min(r.created_at) FROM records r WHERE r.workspace_id = w.id AND NOT r.ready) AS oldest_unready_at,
    (SELECT COALESCE(jsonb_object_agg(j.state, j.n), '{}'::jsonb) FROM (
      SELECT state, count(*)::int AS n FROM jobs WHERE workspace_id = w.id GROUP BY state) j) AS jobs
  FROM workspaces w WHERE w.id = $1`;
