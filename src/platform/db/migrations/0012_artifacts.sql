-- Artifact snapshots: the manifest of a persisted render. The render itself is the text of a
-- keyed record in the artifact's snapshot target; erasing that record removes its snapshot.
CREATE TABLE artifact_snapshots (
  workspace_id uuid NOT NULL,
  id uuid NOT NULL,
  record_id uuid NOT NULL,
  artifact text NOT NULL,
  version integer NOT NULL,
  manifest jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id),
  UNIQUE (workspace_id, record_id),
  FOREIGN KEY (workspace_id, record_id) REFERENCES records (workspace_id, id) ON DELETE CASCADE
);

-- Artifact uses: the handle an application reports feedback on. Never the render: only its hash.
CREATE TABLE artifact_uses (
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  id uuid NOT NULL,
  artifact text NOT NULL,
  version integer NOT NULL,
  definition_hash text NOT NULL,
  render_sha256 text NOT NULL,
  snapshot_id uuid,
  learning_target jsonb,
  render_tokens integer NOT NULL,
  render_truncated boolean NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (workspace_id, id)
);

-- The purge pass takes the oldest expired uses across workspaces.
CREATE INDEX artifact_uses_expiry ON artifact_uses (expires_at);
