-- Keys over HTTP (docs/api.md "Keys over HTTP"): a key of scope admin manages the workspace's
-- keys, and a workspace's first key (default) is one, so the keys that exist keep that power. A
-- key's prefix (egk_ and its next 8 characters) is kept in clear so a leaked key can be matched to
-- its id; 48 of its 256 random bits, not enough to find the rest. Keys made before this have none.
ALTER TABLE workspace_keys DROP CONSTRAINT workspace_keys_scope_check;
ALTER TABLE workspace_keys ADD CONSTRAINT workspace_keys_scope_check
  CHECK (scope IN ('admin', 'read_write', 'read_only'));
-- The default key is each workspace's first (key create names a key default too unless told).
UPDATE workspace_keys SET scope = 'admin'
  WHERE name = 'default' AND scope = 'read_write' AND id IN (
    SELECT DISTINCT ON (workspace_id) id FROM workspace_keys ORDER BY workspace_id, created_at, id);
ALTER TABLE workspace_keys ADD COLUMN prefix text;
