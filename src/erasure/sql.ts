// SQL owned by the erasure module: the closure, the removal, the keyed heads it restores, and the
// traces it clears elsewhere (jobs, runs, derivation state, cursors). Every table reference is
// scoped by its own workspace_id.

/** Audit types an erasure never removes: the proof that erasures happened. */
export const AUDIT_TYPES = ["erasure", "retention"];

/** Every record of an entity but erasure audits, at most $4 (the bound plus one). */
export const ENTITY_SEEDS = `
  SELECT id FROM records
  WHERE workspace_id = $1 AND entity = $2 AND NOT (collection = '_system' AND type = ANY($3::text[]))
  LIMIT $4`;

/** The named records that exist; _system rows are not erasable by id. */
export const ID_SEEDS = `
  SELECT id FROM records WHERE workspace_id = $1 AND id = ANY($2::uuid[]) AND collection <> '_system'`;

/** Records naming any of $2 as a provenance parent (the partial GIN index on derived_from). */
export const CHILDREN = `
  SELECT id FROM records
  WHERE workspace_id = $1 AND derived_from <> '{}' AND derived_from && $2::uuid[]`;

/** What a closure ($2) holds, by collection and entity (an erasure's dry run). */
export const CLOSURE_COUNTS = `
  SELECT count(DISTINCT entity)::int AS affected_entities,
    (SELECT COALESCE(jsonb_object_agg(c.collection, c.n), '{}'::jsonb) FROM (
      SELECT collection, count(*)::int AS n FROM records
      WHERE workspace_id = $1 AND id = ANY($2::uuid[]) GROUP BY collection) c) AS by_collection
  FROM records WHERE workspace_id = $1 AND id = ANY($2::uuid[])`;

/**
 * Returns each removed row's slot and its created_at as text: read back as timestamptz in the same
 * transaction (one session) it is exact to the microsecond, which a JavaScript Date is not. The
 * cast is outside the DELETE: Citus takes no STABLE call in a RETURNING clause.
 */
export const DELETE_RECORDS = `
  WITH removed AS (
    DELETE FROM records WHERE workspace_id = $1 AND id = ANY($2::uuid[])
    RETURNING entity, collection, key, status, created_at)
  SELECT entity, collection, key, status, created_at::text AS created_at FROM removed`;

/** Those of $2 that hold no record any more (run after the delete): their names are forgotten. */
export const EMPTIED_ENTITIES = `
  SELECT e.entity FROM unnest($2::text[]) AS e(entity)
  WHERE NOT EXISTS (SELECT 1 FROM records r WHERE r.workspace_id = $1 AND r.entity = e.entity)`;

/**
 * The access marks of removed records (run after the delete): record_access has no foreign key
 * (migration 0017); a search marking one of them held its lock until it committed, so its mark
 * is visible here.
 */
export const DELETE_MARKS =
  "DELETE FROM record_access WHERE workspace_id = $1 AND record_id = ANY($2::uuid[])";

const SLOTS = "jsonb_to_recordset($2::jsonb) AS s(entity text, collection text, key text, status text)";

/** Heads whose record was removed; returns their slots. */
export const DROP_HEADS = `
  DELETE FROM heads h USING ${SLOTS}
  WHERE h.workspace_id = $1 AND h.entity = s.entity AND h.collection = s.collection AND h.key = s.key
    AND h.status = s.status
    AND NOT EXISTS (SELECT 1 FROM records r WHERE r.workspace_id = $1 AND r.id = h.record_id)
  RETURNING h.entity, h.collection, h.key, h.status`;

/**
 * The newest remaining row of each slot becomes its head again (a slot with none has no head);
 * returns the records restored.
 */
export const RESTORE_HEADS = `
  INSERT INTO heads (workspace_id, entity, collection, key, status, record_id, seq, tombstone)
  SELECT $1, s.entity, s.collection, s.key, s.status, r.id, r.seq, r.tombstone
  FROM ${SLOTS}
  CROSS JOIN LATERAL (
    SELECT id, seq, tombstone FROM records r
    WHERE r.workspace_id = $1 AND r.entity = s.entity AND r.collection = s.collection AND r.key = s.key
      AND r.status = s.status
    ORDER BY r.seq DESC LIMIT 1) r
  RETURNING record_id`;

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
 * The run audits of entities that keep records ($2) forget the erased ids ($3, lower-case text):
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

/**
 * Enrichment jobs forget the erased ids $3 (lower-case text), whatever their state: a finished job
 * kept its payload for good. An enrichment job is queued in the transaction that wrote its records
 * (src/records/insert.ts), so it carries their created_at ($4): the finished jobs to look at are
 * those, not the workspace's whole job history; queued ones are all looked at. A job that named
 * one loses its error text too (an error may quote its input): $5 replaces it.
 */
export const FORGET_ENRICHMENT = `
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

/** ...and a queued one left with nothing to enrich is cancelled. */
export const CANCEL_EMPTY_ENRICHMENT = `
  UPDATE jobs SET state = 'cancelled', finished_at = now(), updated_at = now(),
    last_error = 'cancelled: its records were erased'
  WHERE workspace_id = $1 AND kind = $2 AND state = 'queued' AND payload->'record_ids' = '[]'::jsonb`;

/**
 * Derivation runs in flight for the held entities $3 lose their job ($2: the derivation job kind):
 * cancelled with its lease taken, so every later transaction of the run fails its fence and
 * writes nothing, not even the run's audit of what it read (which would name erased records).
 */
export const STOP_RUNNING_DERIVATIONS = `
  UPDATE jobs SET state = 'cancelled', lease_owner = NULL, lease_expires_at = NULL, finished_at = now(),
    updated_at = now(), last_error = $4
  WHERE workspace_id = $1 AND kind = $2 AND state = 'running' AND payload->>'entity' = ANY($3::text[])
  RETURNING id`;

/** ...and their runs end as the run itself would have ended them: failed, cancelled. */
export const CANCEL_STOPPED_RUNS = `
  UPDATE runs SET status = 'failed', failure = 'cancelled', failure_detail = $3, finished_at = now()
  WHERE workspace_id = $1 AND job_id = ANY($2::uuid[]) AND status = 'running'`;

/** A forgotten entity's (derivation, entity) pairs: watermark, scope hash, generation, cooldown. */
export const FORGET_DERIVATION_STATE =
  "DELETE FROM derivation_state WHERE workspace_id = $1 AND entity = ANY($2::text[])";

/** A forgotten entity's run audits (its records, the runs' output included, are all gone). */
export const FORGET_RUNS = "DELETE FROM runs WHERE workspace_id = $1 AND entity = ANY($2::text[])";

/** Replay cursors scoped to a forgotten entity (their consumer name may carry it too). */
export const FORGET_CURSORS = "DELETE FROM cursors WHERE workspace_id = $1 AND entity = ANY($2::text[])";

/**
 * A forgotten entity's derivation jobs ($2: the kind), in every state, lose the entity: the payload
 * keeps the derivation and the trigger reasons, the coalesce key (which spells the entity) and the
 * deleted run go, an error text is replaced by $4, and a dead one is cancelled (a retry would run
 * for no entity). Queued and running ones were cancelled just before.
 */
export const FORGET_DERIVATION_JOBS = `
  UPDATE jobs SET payload = payload - 'entity', coalesce_key = NULL, successful_run_id = NULL,
    state = CASE WHEN state = 'dead' THEN 'cancelled' ELSE state END,
    last_error = CASE WHEN last_error IS NULL THEN NULL ELSE $4::text END, updated_at = now()
  WHERE workspace_id = $1 AND kind = $2 AND payload->>'entity' = ANY($3::text[])`;

/** An index-deletion job queued before jobs carried only the count keeps only the count once done. */
export const CLEAR_INDEX_PAYLOAD = `
  UPDATE jobs SET payload = jsonb_build_object('records', jsonb_array_length(payload->'record_ids'))
  WHERE workspace_id = $1 AND id = $2 AND jsonb_typeof(payload->'record_ids') = 'array'`;

/**
 * The tables an erasure deletes from or rewrites whose planner statistics sample what it erased:
 * entity names, texts, lexemes (records' search vectors, text_stats, the text cells' index),
 * content values (sorted fields' expression indexes) and job payloads. A table's ANALYZE also
 * samples its expression indexes anew (only without a column list). Not embeddings (vectors hold
 * no words, and an ANALYZE there waits for a seal's index build: src/records/vector-seal.ts) nor
 * record_access or artifact_uses (ids, names of definitions and times). Run outside a
 * transaction: each table is analyzed in a transaction of its own, holding its lock briefly.
 */
export const ANALYZE_ERASED =
  "ANALYZE records, heads, text_stats, runs, derivation_state, cursors, jobs, artifact_snapshots";

/** The time a statistics refresh begins, on the clock jobs' created_at is written by. */
export const STATISTICS_CLOCK = "SELECT clock_timestamp() AS at";
