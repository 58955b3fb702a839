-- Workspaces are the tenants. The key is never stored, only its SHA-256 digest, which is
-- also how a request finds its workspace (an index lookup, no key comparison in code).
CREATE TABLE workspaces (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name text NOT NULL UNIQUE,
  key_digest bytea NOT NULL UNIQUE,
  -- Per-workspace record sequence counter: seq is allocated from this row inside the write
  -- transaction, so commit order equals seq order.
  last_seq bigint NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now()
);
