-- Term-frequency tiers of the full-text vectors (issue 20). Text ranking is ts_rank_cd over an
-- any-term query, which grows with how often the query's words occur in a record, so the best
-- matches of a common word are the records that repeat it most. The GIN index on search_text
-- cannot tell those apart, and scoring every match cost 50-150 ms at 100k records. This index
-- holds one token per (record, lexeme occurring at least twice): the workspace, the occurrence
-- count's tier and the lexeme, so a search reads the records whose query words reach a tier,
-- from the highest down, instead of every match (src/search/text-tiers.ts).
-- Tiers: each count from 2 to 32, then four per doubling (40, 48, 56, 64, 80, ... 192, 224; a
-- tsvector keeps at most 255 positions of a lexeme). The token format is 'workspace:tier:lexeme'.
CREATE FUNCTION engram_text_tiers(workspace uuid, doc tsvector) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT array_agg(workspace::text || ':' || (CASE WHEN n <= 32 THEN n WHEN n < 64 THEN n - n % 8
      WHEN n < 128 THEN n - n % 16 ELSE n - n % 32 END)::text || ':' || lexeme)
  FROM (SELECT u.lexeme, cardinality(u.positions) AS n FROM unnest(doc) AS u) AS t
  WHERE n >= 2
$$;

-- fastupdate off: a GIN index otherwise queues new entries in a pending list that every scan
-- reads whole until a vacuum merges it (PGlite has no autovacuum, and ANALYZE does not merge it).
-- After a 100k-record ingest on the server that list held 14k entries and a probe of one tier
-- took 3 ms instead of 0.02 ms. A record adds a few tokens, so direct inserts cost little.
CREATE INDEX records_text_tiers ON records USING gin (engram_text_tiers(workspace_id, search_text))
  WITH (fastupdate = off) WHERE search_text IS NOT NULL;
