-- Deferred vector indexing (issue 20). Inserting into an HNSW graph one vector at a time costs
-- about 5x what building the graph in bulk does, and was two thirds of an enrichment drain's CPU.
-- On a server, an embedding written while an enrichment backlog waits is stored `deferred`: out
-- of its space's HNSW index and found by an exact scan until the worker seals it, row by row for
-- a small tail, or by building a new index in bulk that covers every deferred row up to a seq
-- (src/records/vector-seal.ts). vector_indexes names each space's current index and how far it
-- covers deferred rows; a space indexed before this migration has no row and is never deferred.
CREATE SEQUENCE embeddings_seq;
ALTER TABLE embeddings ADD COLUMN seq bigint;
-- OWNED BY first: Citus refuses to alter a sequence once a distributed table's default uses it.
ALTER SEQUENCE embeddings_seq OWNED BY embeddings.seq;
ALTER TABLE embeddings ALTER COLUMN seq SET DEFAULT nextval('embeddings_seq');
ALTER TABLE embeddings ADD COLUMN deferred boolean NOT NULL DEFAULT false;
-- A search's exact scan of its workspace's tail, and the worker's look at a space's whole tail.
CREATE INDEX embeddings_deferred_search ON embeddings (workspace_id, space, seq) WHERE deferred;
CREATE INDEX embeddings_deferred_seal ON embeddings (space, seq) WHERE deferred;

CREATE TABLE vector_indexes (
  space text NOT NULL,
  dimensions integer NOT NULL,
  index_name text NOT NULL,
  -- Deferred rows with seq up to this are in the index (0: none).
  built_through bigint NOT NULL DEFAULT 0,
  -- Rows of the space when the index was last built in bulk: the tail a backlog may grow to.
  built_rows bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (space, dimensions)
);
