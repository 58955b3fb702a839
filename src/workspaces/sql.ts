// The key lookup also reads the workspace's active catalog install, by the catalog's own subquery:
// the catalog sits below workspaces (it takes the Workspace type from platform/workspace.ts).
import { activeInstallSql } from "../catalog/index.js";

export const INSERT_WORKSPACE = `
  INSERT INTO workspaces (name) VALUES ($1)
  ON CONFLICT (name) DO NOTHING
  RETURNING id, name, created_at`;

export const LIST_WORKSPACES = "SELECT id, name, created_at FROM workspaces ORDER BY name";

/** A keyset page in name order (names are unique and plain, so the last one is the cursor). */
export const WORKSPACES_PAGE = `SELECT id, name, created_at FROM workspaces
  WHERE $1::text IS NULL OR name > $1 ORDER BY name LIMIT $2`;

export const COUNT_WORKSPACES = "SELECT count(*)::int AS count FROM workspaces";

export const FIND_BY_NAME = "SELECT id, name, created_at FROM workspaces WHERE name = $1";

// What a request needs of its key: the key's workspace, scope and expiry (checked by the caller
// against its clock), and when it was last noted as used. Revoked keys are not found at all.
const KEY_FIELDS = `w.id, w.name, k.id AS key_id, k.name AS key_name, k.scope, k.expires_at, u.last_used_at`;
const KEY_JOIN = `workspace_keys k JOIN workspaces w ON w.id = k.workspace_id
  LEFT JOIN workspace_key_uses u ON u.key_id = k.id
  WHERE k.key_digest = decode($1, 'hex') AND k.revoked_at IS NULL`;

/** The live key's workspace, and the catalog install active in it (for the request's first check). */
export const FIND_BY_KEY_DIGEST = `SELECT ${KEY_FIELDS}, ${activeInstallSql("w.id")} AS catalog_install_id
  FROM ${KEY_JOIN}`;
/**
 * The live key's workspace alone, on Citus: both tables are reference tables there, which Citus does
 * not join with a correlated subquery on a distributed table; the first catalog check reads the install.
 */
export const FIND_WORKSPACE_BY_KEY_DIGEST = `SELECT ${KEY_FIELDS} FROM ${KEY_JOIN}`;

/** Key uses hold no foreign key (migration 0024): they go before the workspace's keys. */
export const DELETE_WORKSPACE_KEY_USES = `DELETE FROM workspace_key_uses
  WHERE key_id IN (SELECT id FROM workspace_keys WHERE workspace_id = $1)`;
export const DELETE_WORKSPACE = "DELETE FROM workspaces WHERE id = $1 RETURNING id";

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

const KEY_COLUMNS = "id, name, scope, prefix, created_at, expires_at, revoked_at";

export const INSERT_KEY = `
  INSERT INTO workspace_keys (workspace_id, name, scope, key_digest, prefix, expires_at)
  VALUES ($1, $2, $3, decode($4, 'hex'), $5, $6)
  RETURNING ${KEY_COLUMNS}, NULL::timestamptz AS last_used_at`;

/** A workspace's keys, oldest first, with their last use; never their digests. */
export const LIST_KEYS = `SELECT k.id, k.name, k.scope, k.prefix, k.created_at, u.last_used_at, k.expires_at, k.revoked_at
  FROM workspace_keys k LEFT JOIN workspace_key_uses u ON u.key_id = k.id
  WHERE k.workspace_id = $1 ORDER BY k.created_at, k.id`;

// Times come from the caller ($3, $2): Citus refuses now() in a write to a reference table.

/** Revokes a key of the workspace; a key already revoked keeps its first revocation time. */
export const REVOKE_KEY = `
  UPDATE workspace_keys SET revoked_at = COALESCE(revoked_at, $3)
  WHERE workspace_id = $1 AND id = $2
  RETURNING ${KEY_COLUMNS}`;

/** REVOKE_KEY for a key named by itself (its digest, $2): what leaked can be revoked as it is. */
export const REVOKE_KEY_BY_DIGEST = `
  UPDATE workspace_keys SET revoked_at = COALESCE(revoked_at, $3)
  WHERE workspace_id = $1 AND key_digest = decode($2, 'hex')
  RETURNING ${KEY_COLUMNS}`;

/** Notes a live key's use at $2; a no-op when another process noted it since $3 (a minute before). */
export const TOUCH_KEY = `
  INSERT INTO workspace_key_uses (key_id, last_used_at)
  SELECT id, $2 FROM workspace_keys WHERE id = $1
  ON CONFLICT (key_id) DO UPDATE SET last_used_at = EXCLUDED.last_used_at
  WHERE workspace_key_uses.last_used_at < $3`;
