import { activeInstallSql } from "../catalog/index.js";

export const INSERT_WORKSPACE = `
  INSERT INTO workspaces (name, key_digest) VALUES ($1, decode($2, 'hex'))
  ON CONFLICT (name) DO NOTHING
  RETURNING id, name, created_at`;

/** A new workspace's record sequence counter (records/sql.ts LOCK_SEQ). */
export const INSERT_COUNTER = "INSERT INTO workspace_counters (workspace_id) VALUES ($1)";

export const LIST_WORKSPACES = "SELECT id, name, created_at FROM workspaces ORDER BY name";

export const COUNT_WORKSPACES = "SELECT count(*)::int AS count FROM workspaces";

export const FIND_BY_NAME = "SELECT id, name, created_at FROM workspaces WHERE name = $1";

/** The key's workspace, and the catalog install active in it (for the request's first check). */
export const FIND_BY_KEY_DIGEST = `SELECT w.id, w.name, ${activeInstallSql("w.id")} AS catalog_install_id
  FROM workspaces w WHERE w.key_digest = decode($1, 'hex')`;
/**
 * The key's workspace alone, on Citus: workspaces is a reference table there, which Citus does
 * not join with a correlated subquery on a distributed table; the first catalog check reads the install.
 */
export const FIND_WORKSPACE_BY_KEY_DIGEST =
  "SELECT id, name FROM workspaces WHERE key_digest = decode($1, 'hex')";

export const DELETE_WORKSPACE = "DELETE FROM workspaces WHERE id = $1";
/** Access marks hold no foreign key (migration 0017): they go after the workspace's records. */
export const DELETE_WORKSPACE_MARKS = "DELETE FROM record_access WHERE workspace_id = $1";
/** Jobs hold no foreign key on Citus, where the queue is a coordinator table (platform/db/citus.ts). */
export const DELETE_WORKSPACE_JOBS = "DELETE FROM jobs WHERE workspace_id = $1";

/**
 * The workspace and its record counts in one statement (one snapshot), GET /workspace: records
 * and entities outside _system (records_entity_names, index-only), unready records and the
 * oldest one's created_at (records_unready; _system rows are always ready). Counting is linear in
 * the workspace's size, on indexes only.
 */
export const WORKSPACE_OVERVIEW = `
  SELECT w.id, w.name, w.created_at,
    (SELECT count(*)::int FROM records r WHERE r.workspace_id = $1 AND r.collection <> '_system') AS records,
    (SELECT count(*)::int FROM (SELECT DISTINCT r.entity COLLATE "C" FROM records r
      WHERE r.workspace_id = $1 AND r.collection <> '_system') e) AS entities,
    (SELECT count(*)::int FROM records r WHERE r.workspace_id = $1 AND NOT r.ready) AS unready,
    (SELECT min(r.created_at) FROM records r WHERE r.workspace_id = $1 AND NOT r.ready) AS oldest_unready_at
  FROM workspaces w WHERE w.id = $1`;

/**
 * Its jobs by state (jobs_state_recent, index-only): a statement of its own, as on Citus the
 * queue is a coordinator table that no statement joins with distributed ones.
 */
export const WORKSPACE_JOBS = `
  SELECT COALESCE(jsonb_object_agg(j.state, j.n), '{}'::jsonb) AS jobs FROM (
    SELECT state, count(*)::int AS n FROM jobs WHERE workspace_id = $1 GROUP BY state) j`;
