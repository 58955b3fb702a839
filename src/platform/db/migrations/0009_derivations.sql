-- Derivation runs: one row per run (a derivation run or a promotion), written when the run starts
-- and completed in the transaction that commits its output. Prompts, evidence text and model
-- replies are never stored.
CREATE TABLE runs (
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  id uuid NOT NULL,
  -- Newest-first paging (GET /runs before_seq).
  seq bigint GENERATED ALWAYS AS IDENTITY,
  operation text NOT NULL CHECK (operation IN ('derive', 'promote')),
  derivation text NOT NULL,
  entity text NOT NULL,
  source_kind text CHECK (source_kind IN ('changes', 'snapshot')),
  status text NOT NULL CHECK (status IN ('running', 'succeeded', 'failed', 'skipped')),
  failure text,
  failure_detail text,
  job_id uuid,
  source_run_id uuid,
  trigger_reasons jsonb NOT NULL DEFAULT '[]',
  package text NOT NULL,
  catalog_hash text NOT NULL,
  definition_hash text NOT NULL,
  config_hash text NOT NULL,
  read_receipt jsonb,
  emission jsonb,
  visible_sources jsonb,
  citations uuid[] NOT NULL DEFAULT '{}',
  output_ids uuid[] NOT NULL DEFAULT '{}',
  usage jsonb NOT NULL DEFAULT '{"calls": 0, "prompt_tokens": 0, "completion_tokens": 0}',
  started_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  PRIMARY KEY (workspace_id, id),
  UNIQUE (workspace_id, seq)
);

CREATE INDEX runs_entity ON runs (workspace_id, entity, seq DESC);
CREATE INDEX runs_job ON runs (workspace_id, job_id) WHERE job_id IS NOT NULL;
-- A draft run is promoted at most once.
CREATE UNIQUE INDEX runs_promotion ON runs (workspace_id, source_run_id)
  WHERE operation = 'promote' AND status = 'succeeded';

-- Per (derivation, entity): the watermark (highest evidence seq the last successful run read),
-- the source scope it was read under, a generation that rebind and erasure bump to hold off a
-- run in flight, and when a job was last queued (trigger cooldowns).
CREATE TABLE derivation_state (
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  derivation text NOT NULL,
  entity text NOT NULL,
  watermark_seq bigint NOT NULL DEFAULT 0,
  source_hash text,
  generation integer NOT NULL DEFAULT 0,
  last_queued_at timestamptz,
  last_run_id uuid,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, derivation, entity)
);

-- Cron triggers: the latest tick already fired, so only the latest missed tick runs and two
-- workers never fire one tick twice.
CREATE TABLE trigger_ticks (
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  trigger text NOT NULL,
  last_tick timestamptz NOT NULL,
  PRIMARY KEY (workspace_id, trigger)
);

-- The claim's check that no job with the same coalesce key is running.
CREATE INDEX jobs_running_key ON jobs (workspace_id, coalesce_key) WHERE state = 'running' AND coalesce_key IS NOT NULL;
