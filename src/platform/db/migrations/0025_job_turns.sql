-- Fair claiming across workspaces (docs/operations.md, "The job queue"): every job has a turn,
-- its place in a round-robin over the workspaces with work, and workers claim the lowest turn
-- first. A job queued before this migration has turn 0 and runs first, oldest first, as before.
ALTER TABLE jobs ADD COLUMN turn bigint NOT NULL DEFAULT 0;
-- The claim walks due jobs in turn order (it walked run_after order).
DROP INDEX jobs_claimable;
CREATE INDEX jobs_claimable ON jobs (turn, run_after) WHERE state = 'queued';
-- A new job's turn is one past its workspace's last queued one: the highest, read at once.
CREATE INDEX jobs_workspace_turns ON jobs (workspace_id, turn) WHERE state = 'queued';
