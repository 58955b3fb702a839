-- The operator console's reads (issue 51), as index scans on 100k records and as many jobs.
-- Entities by name (GET /entities, GET /workspace's entity count): byte order ("C"), the same on
-- every server whatever its default collation, so pages and prefixes (LIKE 'p%' becomes a range
-- on a "C" column) agree everywhere. Listed as a column, not an expression, so counting an
-- entity's records and its newest seq is an index-only scan. _system rows are not entities.
CREATE INDEX records_entity_names ON records (workspace_id, entity COLLATE "C", seq)
  WHERE collection <> '_system';
-- Unready records are few (only those awaiting enrichment): their count and the oldest one's age.
CREATE INDEX records_unready ON records (workspace_id, created_at) WHERE NOT ready;
-- GET /jobs, newest first, with or without a state or kind filter, and the counts by state.
CREATE INDEX jobs_recent ON jobs (workspace_id, created_at, id);
CREATE INDEX jobs_state_recent ON jobs (workspace_id, state, created_at, id);
CREATE INDEX jobs_kind_recent ON jobs (workspace_id, kind, created_at, id);
