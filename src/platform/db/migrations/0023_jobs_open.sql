-- GET /metrics counts the queue by kind and state at every scrape: the open states only (queued,
-- running, dead), which stay few while finished jobs pile up, so the count is an index-only scan
-- of this index rather than a scan of every job ever run (1M jobs: 2 ms instead of 300 ms).
CREATE INDEX jobs_open ON jobs (kind, state) WHERE state IN ('queued', 'running', 'dead');
