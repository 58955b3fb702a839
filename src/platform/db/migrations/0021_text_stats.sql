-- text_match is Okapi BM25 over each workspace's own statistics (issue 53, docs/api.md
-- "Relevance: `text_match`"). Each record keeps its full-text vector's length (lexeme
-- occurrences) and the text search configuration it was built with; text_stats holds, per
-- workspace and configuration, how many searchable records hold each lexeme (docs) and, in the
-- row of the empty lexeme, how many searchable records there are and their total length. Kept
-- exact as records become searchable and stop being so (src/records/text-stats.ts).
CREATE FUNCTION engram_text_length(doc tsvector) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(sum(greatest(cardinality(u.positions), 1)), 0)::integer FROM unnest(doc) AS u
$$;

-- The tiers of migration 0015 go first (replaced below), so the rewrite does not update them.
DROP INDEX records_text_tiers;
DROP FUNCTION engram_text_tiers(uuid, tsvector);

-- How many times a phrase occurs in a vector: positions of its first lexeme from which each other
-- lexeme sits at its offset (phraseto_tsquery's distances, stop words counted).
CREATE FUNCTION engram_phrase_tf(doc tsvector, lexemes text[], offsets integer[]) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT count(*)::integer FROM unnest(doc) AS f, unnest(f.positions) AS p(pos)
  WHERE f.lexeme = lexemes[1] AND NOT EXISTS (
    SELECT 1 FROM generate_subscripts(lexemes, 1) AS i
    WHERE i > 1 AND NOT EXISTS (
      SELECT 1 FROM unnest(doc) AS g, unnest(g.positions) AS q(pos)
      WHERE g.lexeme = lexemes[i] AND q.pos = p.pos + offsets[i]))
$$;

ALTER TABLE records ADD COLUMN search_length integer, ADD COLUMN search_config text;
UPDATE records SET search_length = engram_text_length(search_text) WHERE search_text IS NOT NULL;

CREATE TABLE text_stats (
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  config text NOT NULL,
  lexeme text NOT NULL,
  docs bigint NOT NULL,
  occurrences bigint NOT NULL,
  PRIMARY KEY (workspace_id, config, lexeme)
) WITH (fillfactor = 50);
-- Half-empty pages: a count's update stays on its row's page (a HOT update, no index entry).

-- Workspaces created from now on start with (empty) statistics; those that hold records already
-- have theirs built once, at their first search (src/records/text-stats.ts rebuildTextStats).
ALTER TABLE workspace_counters ADD COLUMN text_stats_built boolean NOT NULL DEFAULT false;
ALTER TABLE workspace_counters ALTER COLUMN text_stats_built SET DEFAULT true;

-- The term-frequency tiers of migration 0015 become cells of (occurrences, record length): BM25's
-- weight of a lexeme in a record grows with its occurrences and falls with the record's length,
-- so a cell's records weigh at most what its fewest-length, most-occurrences corner does. One
-- token per (record, lexeme): 'workspace:occurrence bucket:length bucket:lexeme'. Buckets are
-- exact below 8, then four per doubling; lengths from 16384 share one (src/search/text-cells.ts).

-- Self-contained (no call of another function of ours): PostgreSQL 17 builds and analyzes an
-- index with search_path pg_catalog only. A bucket's width is 2^(floor(log2 n) - 2) from 8 on:
-- the bit position of n's highest one, from its 32-bit string.
CREATE FUNCTION engram_text_cells(workspace uuid, doc tsvector) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT array_agg(workspace::text || ':' || b.tf::text || ':' || b.len::text || ':' || t.lexeme)
  FROM (SELECT u.lexeme, greatest(cardinality(u.positions), 1) AS tf,
          (SELECT sum(greatest(cardinality(v.positions), 1)) FROM unnest(doc) AS v)::integer AS len
        FROM unnest(doc) AS u) AS t,
    LATERAL (SELECT
      CASE WHEN t.tf < 8 THEN t.tf
        ELSE t.tf - t.tf % (1 << (30 - position('1' IN t.tf::bit(32)::text))) END AS tf,
      CASE WHEN t.len < 8 THEN t.len WHEN t.len >= 16384 THEN 16384
        ELSE t.len - t.len % (1 << (30 - position('1' IN t.len::bit(32)::text))) END AS len) AS b
$$;

-- fastupdate off, as the tiers' index (migration 0015): a pending list is read whole by every scan.
CREATE INDEX records_text_cells ON records USING gin (engram_text_cells(workspace_id, search_text))
  WITH (fastupdate = off) WHERE search_text IS NOT NULL;
