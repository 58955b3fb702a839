// SQL owned by the worker: the job queue, the jobs list, and what other modules change in the
// payloads of the jobs they queue (payloads.ts). The worker module alone writes the jobs table.
// Every statement reads or writes only the jobs table, the coordinator's own on Citus
// (docs/scaling.md).

/**
 * The turn a job queued now for workspace `$n` takes (docs/operations.md, "The job queue"): one
 * past the workspace's last queued job, but never behind the turn being served (the highest turn
 * running, or when nothing runs the lowest queued). So a workspace with nothing queued takes the
 * next turn however long another's backlog is, and a backlog's jobs take one turn each. None of
 * the reads scans the backlog: the running jobs (one per worker slot, through jobs_leases), then
 * one end of jobs_claimable and of jobs_workspace_turns. They are written ORDER BY … LIMIT 1
 * rather than min()/max(), which took twice as long to plan (0.5 against 1 ms on PGlite), in
 * every write that queues work.
 */
const SERVING_TURN = `COALESCE((SELECT turn FROM jobs WHERE state = 'running' ORDER BY turn DESC LIMIT 1),
      (SELECT turn FROM jobs WHERE state = 'queued' ORDER BY turn LIMIT 1), 0)`;
const LAST_QUEUED_TURN = (workspace: string) =>
  `(SELECT turn FROM jobs WHERE workspace_id = ${workspace} AND state = 'queued' ORDER BY turn DESC LIMIT 1)`;
const nextTurn = (workspace: string) => `GREATEST(${SERVING_TURN}, ${LAST_QUEUED_TURN(workspace)} + 1)`;

/**
 * How many turns of queued work workspace $1 holds from the one being served: each queued job
 * took a turn of its own, so this is its backlog (coalesced jobs aside), read from the same
 * index ends as a job's turn, never by counting the backlog.
 */
export const BACKLOG = `SELECT GREATEST(COALESCE(${LAST_QUEUED_TURN("$1")} + 1 - ${SERVING_TURN}, 0), 0) AS backlog`;

/**
 * Queues a job, or joins the queued job with the same coalesce key, in one statement. ON CONFLICT
 * DO UPDATE cannot lose a race: when a worker claims the queued job between the conflict check and
 * the update, PostgreSQL re-checks the arbiter index and inserts instead (DO NOTHING followed by a
 * separate join found no queued row there). $2 is the id a new job gets, so an answer with another
 * id is a join. A joined job keeps its turn.
 */
export const ENQUEUE = `
  INSERT INTO jobs (workspace_id, id, kind, payload, coalesce_key, run_after, turn)
  VALUES ($1, $2, $3, $4, $5, COALESCE($6, now()), ${nextTurn("$1")})
  ON CONFLICT (workspace_id, coalesce_key) WHERE coalesce_key IS NOT NULL AND state = 'queued'
  DO UPDATE SET run_after = LEAST(jobs.run_after, excluded.run_after), updated_at = now()
  RETURNING id, run_after`;

/** Wakes the workers listening on the channel ($1) when the transaction commits. */
export const NOTIFY = "SELECT pg_notify($1, '')";

/**
 * Claims running jobs whose lease expired (a dead worker's) first, then due jobs lowest turn first
 * and, within a turn, oldest first: each workspace with work gets the next free slot in turn, never
 * waiting behind another's backlog. A queued job waits while live work with its coalesce key runs,
 * so one key's work never runs twice at once. Each pick walks an index from its start
 * (jobs_leases, jobs_claimable) and stops at the limit; the due pick takes what the expired one
 * left. The picks are MATERIALIZED CTEs so that each runs once: as an IN subquery the planner may
 * rescan it, and each rescan of a LIMIT ... SKIP LOCKED pick can add other rows (PGlite claimed 3
 * jobs for a limit of 2).
 */
export const CLAIM = `
  WITH expired AS MATERIALIZED (
    SELECT workspace_id, id FROM jobs
    WHERE state = 'running' AND lease_expires_at < now() AND kind = ANY($3::text[])
    ORDER BY lease_expires_at
    LIMIT $4
    FOR UPDATE SKIP LOCKED),
  due AS MATERIALIZED (
    SELECT workspace_id, id FROM jobs j
    WHERE state = 'queued' AND run_after <= now() AND array_position($3::text[], kind) IS NOT NULL
      AND (j.coalesce_key IS NULL OR NOT EXISTS (
        SELECT 1 FROM jobs live WHERE live.workspace_id = j.workspace_id AND live.coalesce_key = j.coalesce_key
          AND live.state = 'running' AND live.lease_expires_at >= now()))
    ORDER BY turn, run_after
    LIMIT $4
    FOR UPDATE SKIP LOCKED),
  picked AS (SELECT workspace_id, id FROM expired UNION ALL SELECT workspace_id, id FROM due LIMIT $4)
  UPDATE jobs SET state = 'running', lease_owner = $1, lease_expires_at = now() + make_interval(secs => $2),
    attempts = attempts + 1, updated_at = now()
  FROM picked WHERE jobs.workspace_id = picked.workspace_id AND jobs.id = picked.id
  RETURNING jobs.*`;

/** Renews a lease the worker still holds (the heartbeat). */
export const HEARTBEAT = `
  UPDATE jobs SET lease_expires_at = now() + make_interval(secs => $4), updated_at = now()
  WHERE workspace_id = $1 AND id = $2 AND lease_owner = $3 AND state = 'running'`;

/** Locks the job row if this worker still holds its lease: the fence every commit passes. */
export const FENCE = `
  SELECT id FROM jobs WHERE workspace_id = $1 AND id = $2 AND lease_owner = $3 AND state = 'running'
  FOR UPDATE`;

/** Ends the job as done, only under this worker's lease, with the run it produced if any. */
export const SUCCEED = `
  UPDATE jobs SET state = 'succeeded', lease_owner = NULL, lease_expires_at = NULL, finished_at = now(),
    updated_at = now(), last_error = NULL, successful_run_id = $4
  WHERE workspace_id = $1 AND id = $2 AND lease_owner = $3 AND state = 'running'`;

/** A failure that a retry cannot cure (bad output, a bound, a catalog rule): dead at once. */
export const KILL = `
  UPDATE jobs SET state = $5, lease_owner = NULL, lease_expires_at = NULL, last_error = $4,
    finished_at = now(), updated_at = now()
  WHERE workspace_id = $1 AND id = $2 AND lease_owner = $3 AND state = 'running'`;

/**
 * A failed attempt: queued again after the backoff, or dead once out of attempts. The retry takes
 * a new turn, as a job queued now would: a workspace whose jobs keep failing cannot hold early
 * turns and run ahead of the others' work.
 */
export const FAIL = `
  UPDATE jobs SET
    state = CASE WHEN attempts >= max_attempts THEN 'dead' ELSE 'queued' END,
    run_after = now() + make_interval(secs => $5), lease_owner = NULL, lease_expires_at = NULL,
    last_error = $4, updated_at = now(), turn = ${nextTurn("$1")},
    finished_at = CASE WHEN attempts >= max_attempts THEN now() ELSE NULL END
  WHERE workspace_id = $1 AND id = $2 AND lease_owner = $3 AND state = 'running'
  RETURNING state`;

/**
 * Hands leased jobs back untouched (graceful shutdown): the attempt does not count, and each job
 * keeps its turn, so it runs next.
 */
export const RELEASE = `
  UPDATE jobs SET state = 'queued', lease_owner = NULL, lease_expires_at = NULL, run_after = now(),
    attempts = greatest(attempts - 1, 0), updated_at = now()
  WHERE lease_owner = $1 AND state = 'running'`;

export const GET_JOB = "SELECT * FROM jobs WHERE workspace_id = $1 AND id = $2";

/**
 * POST /jobs/{id}/retry: a dead job queued again with a fresh attempt budget and a new turn (a
 * workspace retrying many dead jobs at once queues them behind the others' work, not ahead).
 */
export const RETRY = `
  UPDATE jobs SET state = 'queued', attempts = 0, run_after = now(), finished_at = NULL, updated_at = now(),
    turn = ${nextTurn("$1")}
  WHERE workspace_id = $1 AND id = $2 AND state = 'dead'
  RETURNING *`;

/**
 * GET /jobs: walks jobs_recent, jobs_state_recent or jobs_kind_recent (migration 0019) backwards
 * from the cursor. The cursor's time is printed by the database itself, so no precision is lost in
 * between. The payload stays behind: GET /jobs/{id} does not show it, and an enrichment job's holds
 * ids.
 */
export const JOB_PAGE = `
  SELECT id, kind, state, attempts, max_attempts, run_after, lease_owner, lease_expires_at, last_error,
    successful_run_id, created_at, updated_at, finished_at,
    to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS cursor_at
  FROM jobs
  WHERE workspace_id = $1
    AND ($2::text IS NULL OR state = $2)
    AND ($3::text IS NULL OR kind = $3)
    AND ($4::timestamptz IS NULL OR (created_at, id) < ($4::timestamptz, $5::uuid))
  ORDER BY created_at DESC, id DESC
  LIMIT $6`;

/** Jobs hold no foreign key on Citus, where the queue is a coordinator table (platform/db/citus.ts). */
export const DELETE_WORKSPACE_JOBS = "DELETE FROM jobs WHERE workspace_id = $1";

/** The queued or running job with a coalesce key, if any. */
export const LIVE_JOB = `
  SELECT id, state FROM jobs WHERE workspace_id = $1 AND coalesce_key = $2 AND state IN ('queued', 'running')
  ORDER BY state DESC, created_at LIMIT 1`;

/** The oldest queued or running job of a kind in a workspace (maintenance runs one at a time). */
export const OPEN_JOB_OF_KIND = `
  SELECT id, state FROM jobs WHERE workspace_id = $1 AND kind = $2 AND state IN ('queued', 'running')
  ORDER BY created_at, id LIMIT 1`;

/** Adds trigger reasons to a queued job that a new request coalesced into. */
export const MERGE_REASONS = `
  UPDATE jobs SET payload = jsonb_set(payload, '{reasons}', (
    SELECT COALESCE(jsonb_agg(DISTINCT reason), '[]'::jsonb)
    FROM jsonb_array_elements(COALESCE(payload->'reasons', '[]'::jsonb) || $3::jsonb) AS reason))
  WHERE workspace_id = $1 AND id = $2`;

/** Entities whose queued job (by coalesce key) already lists a reason. */
export const QUEUED_WITH_REASON = `
  SELECT payload->>'entity' AS entity FROM jobs
  WHERE workspace_id = $1 AND coalesce_key = ANY($2::text[]) AND state = 'queued' AND payload->'reasons' @> $3::jsonb`;

/** Erasure: queued jobs of a kind ($2) for these entities ($3) are cancelled. */
export const CANCEL_QUEUED = `
  UPDATE jobs SET state = 'cancelled', finished_at = now(), updated_at = now(), last_error = $4
  WHERE workspace_id = $1 AND kind = $2 AND state = 'queued' AND payload->>'entity' = ANY($3::text[])`;

/**
 * Jobs of a kind ($2) in flight for the held entities $3 are cancelled with their lease taken, so
 * every later transaction of their handler fails its fence and writes nothing.
 */
export const CANCEL_RUNNING = `
  UPDATE jobs SET state = 'cancelled', lease_owner = NULL, lease_expires_at = NULL, finished_at = now(),
    updated_at = now(), last_error = $4
  WHERE workspace_id = $1 AND kind = $2 AND state = 'running' AND payload->>'entity' = ANY($3::text[])
  RETURNING id`;

/**
 * A forgotten entity's jobs of a kind ($2), in every state, lose the entity: the payload keeps the
 * rest (a derivation's name and trigger reasons), the coalesce key (which spells the entity) and
 * the run id go, an error text is replaced by $4, and a dead one is cancelled (a retry would run
 * for no entity).
 */
export const FORGET_ENTITY = `
  UPDATE jobs SET payload = payload - 'entity', coalesce_key = NULL, successful_run_id = NULL,
    state = CASE WHEN state = 'dead' THEN 'cancelled' ELSE state END,
    last_error = CASE WHEN last_error IS NULL THEN NULL ELSE $4::text END, updated_at = now()
  WHERE workspace_id = $1 AND kind = $2 AND payload->>'entity' = ANY($3::text[])`;

/**
 * Jobs of a kind ($2) forget the erased ids $3 (lower-case text) of their record_ids, whatever
 * their state: a finished job kept its payload for good. Such a job is queued in the transaction
 * that wrote its records (src/records/insert.ts), so it carries their created_at ($4): the
 * finished jobs to look at are those, not the workspace's whole job history; queued ones are all
 * looked at. A job that named one loses its error text too (an error may quote its input): $5
 * replaces it.
 */
export const FORGET_RECORD_IDS = `
  UPDATE jobs SET payload = jsonb_set(jobs.payload, '{record_ids}', k.ids),
    last_error = CASE WHEN jobs.last_error IS NULL THEN NULL ELSE $5::text END, updated_at = now()
  FROM (
    SELECT j.id, COALESCE(jsonb_agg(x.id ORDER BY x.n) FILTER (WHERE NOT (lower(x.id) = ANY($3::text[]))),
      '[]'::jsonb) AS ids
    FROM jobs j
    CROSS JOIN LATERAL jsonb_array_elements_text(CASE WHEN jsonb_typeof(j.payload->'record_ids') = 'array'
      THEN j.payload->'record_ids' ELSE '[]'::jsonb END) WITH ORDINALITY AS x(id, n)
    WHERE j.workspace_id = $1 AND j.kind = $2 AND (j.state = 'queued' OR j.created_at = ANY($4::timestamptz[]))
    GROUP BY j.id
    HAVING bool_or(lower(x.id) = ANY($3::text[]))
  ) k
  WHERE jobs.workspace_id = $1 AND jobs.id = k.id`;

/** ...and a queued one left with no record is cancelled. */
export const CANCEL_EMPTIED = `
  UPDATE jobs SET state = 'cancelled', finished_at = now(), updated_at = now(),
    last_error = 'cancelled: its records were erased'
  WHERE workspace_id = $1 AND kind = $2 AND state = 'queued' AND payload->'record_ids' = '[]'::jsonb`;

/** A job whose payload still lists record ids (queued by an older version) keeps only their count. */
export const KEEP_RECORD_COUNT = `
  UPDATE jobs SET payload = jsonb_build_object('records', jsonb_array_length(payload->'record_ids'))
  WHERE workspace_id = $1 AND id = $2 AND jsonb_typeof(payload->'record_ids') = 'array'`;
