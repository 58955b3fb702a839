-- Backfills run one processor over the stored records of one collection version, in passes of
-- BACKFILL_BATCH records, never overwriting a result a record already has.
CREATE TABLE backfills (
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  collection text NOT NULL,
  version integer NOT NULL,
  processor text NOT NULL,
  max_rows integer,
  state text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'live', 'done', 'cancelled', 'failed')),
  cursor_seq bigint NOT NULL DEFAULT 0,
  scanned integer NOT NULL DEFAULT 0,
  annotated integer NOT NULL DEFAULT 0,
  cancel_requested boolean NOT NULL DEFAULT false,
  last_error text,
  job_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id)
);

-- One live backfill per (collection version, processor) target.
CREATE UNIQUE INDEX backfills_live ON backfills (workspace_id, collection, version, processor)
  WHERE state IN ('queued', 'live');
CREATE INDEX backfills_recent ON backfills (workspace_id, created_at DESC);
