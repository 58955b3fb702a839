-- Erasure expands the derived_from closure level by level ("which records name any of these as a
-- parent"); only derived rows have parents, so the index leaves the others out.
CREATE INDEX records_derived_from ON records USING gin (derived_from) WHERE derived_from <> '{}';

-- Retention policies: the latest cron tick already run per (workspace, policy), so only the
-- latest missed tick runs and two workers never run one tick twice.
CREATE TABLE retention_ticks (
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  policy text NOT NULL,
  last_tick timestamptz NOT NULL,
  PRIMARY KEY (workspace_id, policy)
);
