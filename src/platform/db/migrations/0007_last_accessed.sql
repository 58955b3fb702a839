-- When a search or view last returned a record: the age_hours(last_accessed) rank signal.
ALTER TABLE records ADD COLUMN last_accessed timestamptz;
