-- The per-workspace record sequence counter moves out of workspaces into a table of its own,
-- keyed by workspace_id: on Citus workspaces is a reference table (replicated to every node, so
-- bumping a counter there made each write a commit across all nodes) while this one is
-- distributed with the workspace's records, and a write stays on one node.
CREATE TABLE workspace_counters (
  workspace_id uuid PRIMARY KEY REFERENCES workspaces (id) ON DELETE CASCADE,
  last_seq bigint NOT NULL DEFAULT 0
);
INSERT INTO workspace_counters (workspace_id, last_seq) SELECT id, last_seq FROM workspaces;
ALTER TABLE workspaces DROP COLUMN last_seq;
