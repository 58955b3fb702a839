-- When a search last returned a record (the age_hours(last_accessed) rank signal), in a narrow
-- table of its own. As a column of records, each mark rewrote the whole row into every index of
-- records (19 at 100k records with the example package, two of them GIN): marking a search's 20
-- hits took 2-7 ms, a third of a workspace-wide text search. Here a mark is an upsert into one
-- primary key. Erasure and retention delete records; their marks go with them (cascade).
CREATE TABLE record_access (
  workspace_id uuid NOT NULL,
  record_id uuid NOT NULL,
  last_accessed timestamptz NOT NULL,
  PRIMARY KEY (workspace_id, record_id),
  FOREIGN KEY (workspace_id, record_id) REFERENCES records (workspace_id, id) ON DELETE CASCADE
);

INSERT INTO record_access (workspace_id, record_id, last_accessed)
SELECT workspace_id, id, last_accessed FROM records WHERE last_accessed IS NOT NULL;

ALTER TABLE records DROP COLUMN last_accessed;
