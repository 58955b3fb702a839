-- A workspace holds any number of keys, so one can be rotated (create, switch clients, revoke)
-- without downtime, limited to reading, or given an expiry. As before only the SHA-256 digest of
-- a key is stored, and the digest is how a request finds its key and workspace (an index probe).
-- On Citus this is a reference table, like workspaces: a request's first lookup names no workspace.
CREATE TABLE workspace_keys (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  name text NOT NULL,
  scope text NOT NULL CHECK (scope IN ('read_write', 'read_only')),
  key_digest bytea NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  -- Kept at most once a minute per key, off the request's path (src/workspaces/key-use.ts).
  last_used_at timestamptz,
  expires_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX workspace_keys_workspace ON workspace_keys (workspace_id, created_at);
INSERT INTO workspace_keys (workspace_id, name, scope, key_digest, created_at)
  SELECT id, 'default', 'read_write', key_digest, created_at FROM workspaces;
ALTER TABLE workspaces DROP COLUMN key_digest;
