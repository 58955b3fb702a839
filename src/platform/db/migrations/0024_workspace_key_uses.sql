-- A key's last use moves to a table of its own, without foreign keys. On Citus a write to a
-- reference table also locks the reference tables its foreign keys name, and the once-a-minute
-- note of a key's use (an UPDATE of workspace_keys, which references workspaces) took those
-- locks in the opposite order to a transaction creating a workspace and its key: Citus found a
-- distributed deadlock and cancelled one of them. A note now locks this table alone, which
-- nothing else writes in a transaction. Its rows go with their workspace (deleteWorkspace).
CREATE TABLE workspace_key_uses (
  key_id uuid PRIMARY KEY,
  last_used_at timestamptz NOT NULL
);
INSERT INTO workspace_key_uses (key_id, last_used_at)
  SELECT id, last_used_at FROM workspace_keys WHERE last_used_at IS NOT NULL;
ALTER TABLE workspace_keys DROP COLUMN last_used_at;
