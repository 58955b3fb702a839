-- Durable background work. Jobs are inserted in the same transaction as the rows that need
-- them (no lost work, no phantom jobs) and claimed by workers with FOR UPDATE SKIP LOCKED.
CREATE TABLE jobs (
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  kind text NOT NULL,
  state text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'running', 'succeeded', 'dead', 'cancelled')),
  payload jsonb NOT NULL DEFAULT '{}',
  attempts integer NOT NULL DEFAULT 0,
  max_attempts integer NOT NULL DEFAULT 5,
  run_after timestamptz NOT NULL DEFAULT now(),
  lease_owner text,
  lease_expires_at timestamptz,
  -- A second request for the same live work returns the queued job instead of a new one.
  coalesce_key text,
  last_error text,
  successful_run_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  PRIMARY KEY (workspace_id, id)
);

CREATE UNIQUE INDEX jobs_coalesce ON jobs (workspace_id, coalesce_key) WHERE coalesce_key IS NOT NULL AND state = 'queued';
CREATE INDEX jobs_claimable ON jobs (run_after) WHERE state = 'queued';
CREATE INDEX jobs_leases ON jobs (lease_expires_at) WHERE state = 'running';
