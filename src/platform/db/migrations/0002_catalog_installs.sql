-- Every published package of a workspace, with the uploaded files it was loaded from. The
-- active row is the installed catalog; a rollback re-publishes an earlier package.
CREATE TABLE catalog_installs (
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  package text NOT NULL,
  catalog_hash text NOT NULL,
  files jsonb NOT NULL,
  hashes jsonb NOT NULL,
  active boolean NOT NULL DEFAULT false,
  installed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id)
);

CREATE UNIQUE INDEX catalog_installs_one_active ON catalog_installs (workspace_id) WHERE active;
