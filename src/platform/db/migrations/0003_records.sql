-- The system of record. seq is allocated per workspace from workspaces.last_seq inside the
-- write transaction (the row lock serializes writers), so commit order equals seq order.
CREATE TABLE records (
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  id uuid NOT NULL,
  seq bigint NOT NULL,
  collection text NOT NULL,
  collection_version integer NOT NULL,
  collection_hash text NOT NULL,
  entity text NOT NULL,
  type text NOT NULL,
  key text,
  status text NOT NULL CHECK (status IN ('active', 'draft')),
  ready boolean NOT NULL,
  tombstone boolean NOT NULL DEFAULT false,
  text text NOT NULL DEFAULT '',
  content jsonb NOT NULL DEFAULT '{}',
  scores jsonb NOT NULL DEFAULT '{}',
  annotations jsonb NOT NULL DEFAULT '{}',
  citations uuid[] NOT NULL DEFAULT '{}',
  derived_from uuid[] NOT NULL DEFAULT '{}',
  depth integer NOT NULL DEFAULT 0,
  run_id uuid,
  dedupe_key text,
  -- SHA-256 of the row as written, to tell a retry (same payload) from a conflict.
  payload_hash text NOT NULL,
  occurred_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id),
  UNIQUE (workspace_id, seq)
);

CREATE UNIQUE INDEX records_dedupe ON records (workspace_id, dedupe_key) WHERE dedupe_key IS NOT NULL;
CREATE INDEX records_entity_seq ON records (workspace_id, entity, seq DESC);
CREATE INDEX records_slot_seq ON records (workspace_id, entity, collection, key, seq DESC) WHERE key IS NOT NULL;
CREATE INDEX records_contract ON records (workspace_id, collection, collection_version, collection_hash);

-- Current keyed state: the newest row per (entity, collection, key) and status, updated in the
-- write transaction, so current reads are index lookups. Current-ness ignores readiness.
CREATE TABLE heads (
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  entity text NOT NULL,
  collection text NOT NULL,
  key text NOT NULL,
  status text NOT NULL,
  record_id uuid NOT NULL,
  seq bigint NOT NULL,
  tombstone boolean NOT NULL,
  PRIMARY KEY (workspace_id, entity, collection, key, status)
);

-- Replay consumers: the last position a consumer acknowledged, with the scope it read.
CREATE TABLE cursors (
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  consumer text NOT NULL,
  entity text,
  position bigint NOT NULL,
  scope_hash text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, consumer)
);
