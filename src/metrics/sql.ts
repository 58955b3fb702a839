// The statements a scrape runs: each reads every workspace at once, and none names one.

/** The states engram_jobs reports (jobs_open's, as JOB_COUNTS names them): work waiting or running, and work that needs a person. */
export const OPEN_JOB_STATES = ["queued", "running", "dead"] as const;

/**
 * The open jobs by kind and state, from the partial index jobs_open (migration 0023): finished
 * jobs are never deleted, so counting them all would read every job ever run. The jobs table is
 * a coordinator table on Citus.
 */
export const JOB_COUNTS = `
  SELECT kind, state, count(*)::int AS n FROM jobs
  WHERE state IN ('queued', 'running', 'dead')
  GROUP BY kind, state`;

/**
 * The oldest unready record's age by the database's clock (created_at is the database's too):
 * the partial index records_unready holds unready records only, so this reads the backlog alone.
 */
export const OLDEST_UNREADY = `
  SELECT coalesce(extract(epoch FROM now() - min(created_at)), 0)::float8 AS age
  FROM records WHERE NOT ready`;
