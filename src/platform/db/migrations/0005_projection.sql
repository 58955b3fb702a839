-- Search projection, written by the worker in the transaction that makes a record ready:
-- the full-text vector (the search profile's text configuration) on the record, and one
-- embedding per named space. With pgvector the embedding is a `vector`; without it a real[]
-- searched by an exact scan (docs/operations.md "Vector layouts").
ALTER TABLE records ADD COLUMN search_text tsvector;
CREATE INDEX records_search_text ON records USING gin (search_text);

DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector') THEN
    EXECUTE 'CREATE TABLE embeddings (
      workspace_id uuid NOT NULL,
      record_id uuid NOT NULL,
      space text NOT NULL,
      embedding vector NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (workspace_id, record_id, space),
      FOREIGN KEY (workspace_id, record_id) REFERENCES records (workspace_id, id) ON DELETE CASCADE)';
  ELSE
    EXECUTE 'CREATE TABLE embeddings (
      workspace_id uuid NOT NULL,
      record_id uuid NOT NULL,
      space text NOT NULL,
      embedding real[] NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (workspace_id, record_id, space),
      FOREIGN KEY (workspace_id, record_id) REFERENCES records (workspace_id, id) ON DELETE CASCADE)';
  END IF;
END
$$;
