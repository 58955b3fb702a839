// SQL owned by the derivations module: runs, per-(derivation, entity) state, evidence reads,
// trigger checks, and what an erasure changes in runs and state (erasure.ts).

/** A record this derivation wrote itself (its own output is never new evidence for it). */
// The workspace is $1 in every statement using it, named outright so that Citus routes the
// subquery (docs/scaling.md, "Statements that route").
const OWN_OUTPUT = `(r.run_id IS NOT NULL AND EXISTS (
  SELECT 1 FROM runs own WHERE own.workspace_id = $1 AND own.id = r.run_id AND own.derivation = $DERIVATION))`;

function own(param: string): string {
  return OWN_OUTPUT.replace("$DERIVATION", param);
}

const STATE_COLUMNS = "watermark_seq, source_hash, generation, last_queued_at, last_run_id";

export const GET_STATE = `SELECT ${STATE_COLUMNS} FROM derivation_state
  WHERE workspace_id = $1 AND derivation = $2 AND entity = $3`;

export const LOCK_STATE = `${GET_STATE} FOR UPDATE`;

/**
 * The pair's state, created when missing, locked until the transaction ends. One statement: an
 * insert that did nothing followed by a read could find the row gone (an erasure's delete).
 */
export const LOCK_OR_CREATE_STATE = `
  INSERT INTO derivation_state (workspace_id, derivation, entity) VALUES ($1, $2, $3)
  ON CONFLICT (workspace_id, derivation, entity) DO UPDATE SET updated_at = derivation_state.updated_at
  RETURNING ${STATE_COLUMNS}`;

export const SET_QUEUED_AT = `
  UPDATE derivation_state SET last_queued_at = $4, updated_at = now()
  WHERE workspace_id = $1 AND derivation = $2 AND entity = $3`;

export const ADVANCE_WATERMARK = `
  UPDATE derivation_state SET watermark_seq = $4, source_hash = $5, last_run_id = $6, updated_at = now()
  WHERE workspace_id = $1 AND derivation = $2 AND entity = $3`;

/** Rebind: repoint the watermark and hold off a run in flight (its commit sees a new generation). */
export const REBIND_STATE = `
  UPDATE derivation_state SET watermark_seq = $4, source_hash = $5, generation = generation + 1, updated_at = now()
  WHERE workspace_id = $1 AND derivation = $2 AND entity = $3
  RETURNING ${STATE_COLUMNS}`;

/**
 * Per entity: the summed metric of ready evidence above the watermark. The sum is a subquery per
 * entity so that it always reads that entity's rows by (entity, seq): as a join, with planner
 * statistics lagging a fast ingest, it scanned every record of the collections (37 ms at 20k).
 */
export const ACCUMULATED = `
  SELECT e.entity, COALESCE((
    SELECT sum((r.scores->>$4)::float8) FROM records r
    WHERE r.workspace_id = $1 AND r.entity = e.entity AND r.seq > COALESCE(s.watermark_seq, 0)
      AND r.collection = ANY($3::text[]) AND r.ready AND r.scores ? $4 AND NOT ${own("$5")}), 0)::float8 AS total
  FROM unnest($2::text[]) AS e(entity)
  LEFT JOIN derivation_state s ON s.workspace_id = $1 AND s.derivation = $5 AND s.entity = e.entity`;

/** Whether ready evidence lies above the watermark (dirty), and how many source rows are unready. */
export const EVIDENCE_STATE = `
  SELECT
    EXISTS (SELECT 1 FROM records r WHERE r.workspace_id = $1 AND r.entity = $2 AND r.collection = ANY($3::text[])
      AND r.ready AND r.seq > $5 AND NOT ${own("$4")}) AS dirty,
    (SELECT count(*)::int FROM records r WHERE r.workspace_id = $1 AND r.entity = $2
      AND r.collection = ANY($3::text[]) AND NOT r.ready) AS unready`;

/**
 * Entities whose ready evidence lies above their watermark (cron triggers), leaving out evidence
 * a failed run of the derivation already saw (written before that run started): a derivation
 * that keeps failing on the same evidence is not queued again every tick, only once new
 * evidence arrives (or on request, POST /processors/{name}/run).
 */
export const DIRTY_ENTITIES = `
  SELECT DISTINCT r.entity FROM records r
  LEFT JOIN derivation_state s ON s.workspace_id = $1 AND s.derivation = $3 AND s.entity = r.entity
  WHERE r.workspace_id = $1 AND r.collection = ANY($2::text[]) AND r.ready
    AND r.seq > COALESCE(s.watermark_seq, 0) AND NOT ${own("$3")}
    AND NOT EXISTS (SELECT 1 FROM runs f WHERE f.workspace_id = $1 AND f.entity = r.entity
      AND f.derivation = $3 AND f.status = 'failed' AND f.started_at >= r.created_at)
  ORDER BY r.entity LIMIT $4`;

/** Every workspace, in a stable order: a cron pass looks at each one's triggers. */
export const WORKSPACE_IDS = "SELECT id FROM workspaces ORDER BY id";

/** Claims a cron tick newer than the last one fired; fired is false on first sight (inserted). */
export const CLAIM_TICK = `
  INSERT INTO trigger_ticks (workspace_id, trigger, last_tick) VALUES ($1, $2, $3)
  ON CONFLICT (workspace_id, trigger) DO UPDATE SET last_tick = excluded.last_tick
    WHERE trigger_ticks.last_tick < excluded.last_tick
  RETURNING (xmax <> 0) AS fired`;

export const RUN_IDS_OF = `SELECT id, derivation FROM runs WHERE workspace_id = $1 AND id = ANY($2::uuid[])`;

const EVIDENCE_COLUMNS = `r.id, r.seq, r.collection, r.collection_version, r.type, r.key, r.status, r.tombstone,
  r.text, r.content, r.scores, r.depth, r.occurred_at`;

/** Filters of a source: $2 entity, $3 collections, $4 types, $5 statuses, $6 keyed, $7 keys. */
const SOURCE_FILTERS = `r.workspace_id = $1 AND r.entity = $2 AND r.collection = ANY($3::text[])
  AND ($4::text[] IS NULL OR r.type = ANY($4::text[])) AND r.status = ANY($5::text[])
  AND ($6::boolean IS NULL OR (r.key IS NOT NULL) = $6) AND ($7::text[] IS NULL OR r.key = ANY($7::text[]))`;

/** Ready records of a source in (from, through], oldest first; $10 names the derivation to skip its own output. */
export const SOURCE_RANGE = `
  SELECT ${EVIDENCE_COLUMNS} FROM records r
  WHERE ${SOURCE_FILTERS} AND r.ready AND r.seq > $8 AND r.seq <= $9
    AND ($10::text IS NULL OR NOT ${own("$10")})
  ORDER BY r.seq LIMIT $11`;

/** The oldest unready record of a source in (from, through]: a changes read stops below it. */
export const FIRST_UNREADY = `
  SELECT min(r.seq) AS seq FROM records r
  WHERE ${SOURCE_FILTERS} AND NOT r.ready AND r.seq > $8 AND r.seq <= $9`;

/** Current keyed values of a source (heads; an unready head hides its slot, no fallback). */
export const SOURCE_CURRENT = `
  SELECT ${EVIDENCE_COLUMNS} FROM heads h
  JOIN records r ON r.workspace_id = $1 AND r.id = h.record_id
  WHERE h.workspace_id = $1 AND h.entity = $2 AND h.collection = ANY($3::text[]) AND h.status = ANY($5::text[])
    AND NOT h.tombstone AND r.ready AND ($4::text[] IS NULL OR r.type = ANY($4::text[]))
    AND $6::boolean IS NOT FALSE AND ($7::text[] IS NULL OR h.key = ANY($7::text[]))
  ORDER BY h.collection, h.key, h.status LIMIT $8`;

/** The active heads of the emission collection for the entity (the run's basis). */
export const ACTIVE_HEADS = `
  SELECT h.key, h.record_id, h.tombstone, r.text, r.content FROM heads h
  JOIN records r ON r.workspace_id = $1 AND r.id = h.record_id
  WHERE h.workspace_id = $1 AND h.entity = $2 AND h.collection = $3 AND h.status = 'active'
    AND ($4::text[] IS NULL OR h.key = ANY($4::text[]))
  ORDER BY h.key LIMIT $5`;

const RUN_COLUMNS = `id, seq, operation, derivation, entity, source_kind, status, failure, failure_detail, job_id,
  source_run_id, trigger_reasons, package, catalog_hash, definition_hash, config_hash, read_receipt, emission,
  visible_sources, citations, output_ids, usage, started_at, finished_at`;

/** A derivation's latest ended runs in a workspace, newest first (is a schedule paused?). */
export const LAST_ENDED_RUNS = `
  SELECT status, failure, definition_hash, started_at FROM runs
  WHERE workspace_id = $1 AND derivation = $2 AND operation = 'derive' AND status <> 'running'
  ORDER BY seq DESC LIMIT $3`;

export const INSERT_RUN = `
  INSERT INTO runs (workspace_id, id, operation, derivation, entity, source_kind, status, job_id, source_run_id,
    trigger_reasons, package, catalog_hash, definition_hash, config_hash)
  VALUES ($1, $2, $3, $4, $5, $6, 'running', $7, $8, $9, $10, $11, $12, $13)`;

/** Ends a run: its status, failure and everything it read and wrote. */
export const FINISH_RUN = `
  UPDATE runs SET status = $3, failure = $4, failure_detail = $5, read_receipt = $6, emission = $7,
    visible_sources = $8, citations = $9::uuid[], output_ids = $10::uuid[], usage = $11, finished_at = now()
  WHERE workspace_id = $1 AND id = $2`;

/** Runs an earlier attempt of a job left running (its worker died): they did not finish. */
export const ABANDON_RUNS = `
  UPDATE runs SET status = 'failed', failure = 'internal', failure_detail = 'the worker running it stopped before it finished',
    finished_at = now()
  WHERE workspace_id = $1 AND job_id = $2 AND status = 'running'`;

export const GET_RUN = `SELECT ${RUN_COLUMNS} FROM runs WHERE workspace_id = $1 AND id = $2`;

export const LIST_RUNS = `
  SELECT ${RUN_COLUMNS} FROM runs
  WHERE workspace_id = $1 AND ($2::text IS NULL OR entity = $2) AND ($3::text IS NULL OR derivation = $3)
    AND ($4::text IS NULL OR operation = $4) AND ($5::text IS NULL OR source_kind = $5)
    AND ($6::text IS NULL OR status = $6) AND ($7::bigint IS NULL OR seq < $7)
  ORDER BY seq DESC LIMIT $8`;

export const PROMOTION_OF = `
  SELECT ${RUN_COLUMNS} FROM runs
  WHERE workspace_id = $1 AND source_run_id = $2 AND operation = 'promote' AND status = 'succeeded'`;

/** Output records of a run in output order (output_ids), for GET /runs/{id}. */
export const OUTPUT_RECORDS = `
  SELECT r.id, r.seq, r.collection, r.key, r.type, r.status, r.ready, r.tombstone, r.text, r.citations,
    r.depth, r.occurred_at, r.created_at
  FROM unnest($2::uuid[]) WITH ORDINALITY AS o(id, n)
  JOIN records r ON r.workspace_id = $1 AND r.id = o.id
  ORDER BY o.n`;

export const DRAFTS_OF_RUN = `
  SELECT id, collection, collection_version, collection_hash, entity, type, key, tombstone, text, content,
    citations, derived_from, occurred_at
  FROM records WHERE workspace_id = $1 AND run_id = $2 AND status = 'draft'
  ORDER BY seq`;

/** Erasure: a run in flight for these entities commits nothing (its commit sees a new generation). */
export const HOLD_OFF_STATE = `
  UPDATE derivation_state SET generation = generation + 1, updated_at = now()
  WHERE workspace_id = $1 AND entity = ANY($2::text[])`;

/** Erasure of a whole entity: its pairs start over as if never run (the generation stays bumped). */
export const FORGET_STATE = `
  UPDATE derivation_state SET watermark_seq = 0, source_hash = NULL, last_run_id = NULL, last_queued_at = NULL
  WHERE workspace_id = $1 AND entity = $2`;

export const FORGET_RUNS = "DELETE FROM runs WHERE workspace_id = $1 AND entity = $2";

/** Erasure: the runs of the jobs it stopped ($2) end as the run itself would have ended them: failed, cancelled. */
export const CANCEL_STOPPED_RUNS = `
  UPDATE runs SET status = 'failed', failure = 'cancelled', failure_detail = $3, finished_at = now()
  WHERE workspace_id = $1 AND job_id = ANY($2::uuid[]) AND status = 'running'`;

/** Erasure: a forgotten entity's (derivation, entity) pairs: watermark, scope hash, generation, cooldown. */
export const FORGET_ENTITIES_STATE =
  "DELETE FROM derivation_state WHERE workspace_id = $1 AND entity = ANY($2::text[])";

/** Erasure: a forgotten entity's run audits (its records, the runs' output included, are all gone). */
export const FORGET_ENTITIES_RUNS = "DELETE FROM runs WHERE workspace_id = $1 AND entity = ANY($2::text[])";

/** A uuid anywhere in a text (the ids a run's audit or an error message holds). */
const UUID_RE = "'[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}'";

/**
 * Whether the jsonb value names one of the erased ids $3 (lower-case text), itself or as an
 * object's value. A searched CASE, not `CASE x WHEN …`: Citus 13 sends a simple CASE nested in
 * subqueries to its shard as `WHEN NULL::boolean` (the query then fails: text = boolean).
 */
function namesErased(value: string): string {
  return `(CASE
    WHEN jsonb_typeof(${value}) = 'string' THEN lower(${value} #>> '{}') = ANY($3::text[])
    WHEN jsonb_typeof(${value}) = 'object' THEN EXISTS (SELECT 1 FROM jsonb_each_text(${value}) AS v(k, t) WHERE lower(v.t) = ANY($3::text[]))
    ELSE false END)`;
}

/** The jsonb array without the entries that name an erased id (order kept). */
function keptEntries(array: string): string {
  return `(SELECT COALESCE(jsonb_agg(x.e ORDER BY x.n), '[]'::jsonb)
    FROM jsonb_array_elements(${array}) WITH ORDINALITY AS x(e, n) WHERE NOT ${namesErased("x.e")})`;
}

/** The document with the array at path (if there is one) scrubbed by keptEntries. */
function scrubbedAt(doc: string, path: string): string {
  return `CASE WHEN jsonb_typeof(${doc} #> '${path}') = 'array'
    THEN jsonb_set(${doc}, '${path}', ${keptEntries(`${doc} #> '${path}'`)}) ELSE ${doc} END`;
}

/** A uuid array without the erased ids (order kept). */
function keptIds(array: string): string {
  return `ARRAY(SELECT u.id FROM unnest(${array}) WITH ORDINALITY AS u(id, n)
    WHERE NOT (u.id::text = ANY($3::text[])) ORDER BY u.n)`;
}

/**
 * Erasure: the run audits of entities that keep records ($2) forget the erased ids ($3, lower-case text):
 * cited and output ids, the ids each source showed, and the entries of the read receipt's and the
 * emission's head lists, divergences and promotions that name one; an error text naming one is
 * replaced by $4. A run only ever reads, cites and writes records of its own entity, so the runs of
 * the affected entities are the only ones that can name them; of those, the ones naming an
 * erased id anywhere are rewritten. Counts (read_receipt.sources) stay as they were.
 */
export const SCRUB_RUNS = `
  UPDATE runs SET citations = s.citations, output_ids = s.output_ids, read_receipt = s.read_receipt,
    emission = s.emission, visible_sources = s.visible_sources, failure_detail = s.failure_detail
  FROM (
    SELECT r.id, ${keptIds("r.citations")} AS citations, ${keptIds("r.output_ids")} AS output_ids,
      ${scrubbedAt("r.read_receipt", "{heads}")} AS read_receipt,
      e4.doc AS emission,
      CASE WHEN jsonb_typeof(r.visible_sources) = 'array' THEN (
        SELECT COALESCE(jsonb_agg(CASE WHEN jsonb_typeof(v.e->'record_ids') = 'array'
          THEN jsonb_set(v.e, '{record_ids}', ${keptEntries("v.e->'record_ids'")}) ELSE v.e END ORDER BY v.n), '[]'::jsonb)
        FROM jsonb_array_elements(r.visible_sources) WITH ORDINALITY AS v(e, n))
      ELSE r.visible_sources END AS visible_sources,
      CASE WHEN EXISTS (SELECT 1 FROM regexp_matches(COALESCE(r.failure_detail, ''), ${UUID_RE}, 'g') AS m(u)
          WHERE lower(m.u[1]) = ANY($3::text[]))
        THEN $4::text ELSE r.failure_detail END AS failure_detail
    FROM runs r
    CROSS JOIN LATERAL (SELECT ${scrubbedAt("r.emission", "{basis,heads}")} AS doc) e1
    CROSS JOIN LATERAL (SELECT ${scrubbedAt("e1.doc", "{expected_active_heads}")} AS doc) e2
    CROSS JOIN LATERAL (SELECT ${scrubbedAt("e2.doc", "{keyed_divergence}")} AS doc) e3
    CROSS JOIN LATERAL (SELECT ${scrubbedAt("e3.doc", "{promoted}")} AS doc) e4
    WHERE r.workspace_id = $1 AND r.entity = ANY($2::text[]) AND EXISTS (
      SELECT 1 FROM regexp_matches(concat_ws(' ', r.citations::text, r.output_ids::text, r.read_receipt::text,
        r.emission::text, r.visible_sources::text, r.failure_detail), ${UUID_RE}, 'g') AS m(u)
      WHERE lower(m.u[1]) = ANY($3::text[]))
  ) s
  WHERE runs.workspace_id = $1 AND runs.id = s.id`;
