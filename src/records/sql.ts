// SQL owned by the records module: records and what is kept beside them (heads, cursors,
// embeddings and their indexes, term statistics, access marks, backfills, the workspace's counters
// row). Other modules change these tables through the records module's functions.
import { vectorHashSql } from "./vector-sql.js";

/**
 * Locks the workspace's sequence counter: concurrent writers of a workspace take turns, and
 * commit order equals seq order. The counter has a table of its own (migration 0020), so no
 * foreign-key check on the workspace row waits behind a writer, and on Citus it lives on the
 * workspace's node with its records.
 */
export const LOCK_SEQ = "SELECT last_seq FROM workspace_counters WHERE workspace_id = $1 FOR NO KEY UPDATE";

export const ADVANCE_SEQ = "UPDATE workspace_counters SET last_seq = last_seq + $2 WHERE workspace_id = $1";

export const FIND_DEDUPE = `
  SELECT id, dedupe_key, payload_hash FROM records
  WHERE workspace_id = $1 AND dedupe_key = ANY($2::text[])`;

export const FIND_PARENTS = "SELECT id, depth FROM records WHERE workspace_id = $1 AND id = ANY($2::uuid[])";

/** One statement for the whole batch: rows arrive as a JSON array. */
export const INSERT_RECORDS = `
  INSERT INTO records (workspace_id, id, seq, collection, collection_version, collection_hash, entity, type,
    key, status, ready, tombstone, text, content, scores, annotations, citations, derived_from, depth, run_id,
    dedupe_key, payload_hash, occurred_at, search_text, search_length, search_config)
  SELECT $1, r.id, r.seq, r.collection, r.collection_version, r.collection_hash, r.entity, r.type,
    r.key, r.status, r.ready, r.tombstone, r.text, r.content, r.scores, r.annotations,
    ARRAY(SELECT jsonb_array_elements_text(r.citations)::uuid),
    ARRAY(SELECT jsonb_array_elements_text(r.derived_from)::uuid), r.depth, r.run_id, r.dedupe_key,
    r.payload_hash, COALESCE(r.occurred_at, now()), v.search_text, engram_text_length(v.search_text),
    CASE WHEN r.ready THEN r.config END
  FROM jsonb_to_recordset($2::jsonb) AS r(id uuid, seq bigint, collection text, collection_version integer,
    collection_hash text, entity text, type text, key text, status text, ready boolean, tombstone boolean,
    text text, content jsonb, scores jsonb, annotations jsonb, citations jsonb, derived_from jsonb, depth integer,
    run_id uuid, dedupe_key text, payload_hash text, occurred_at timestamptz, config text, document text),
    LATERAL (SELECT CASE WHEN r.ready THEN to_tsvector(r.config::regconfig, r.document) END AS search_text) v`;

const NEW_HEADS = `jsonb_to_recordset($2::jsonb) AS h(entity text, collection text, key text, status text,
    record_id uuid, seq bigint, tombstone boolean)`;

/**
 * The records heading the slots a batch is about to move ($2: UPSERT_HEADS's rows), each a
 * primary-key probe (LIMIT 1 keeps it one: as a join, the planner hashed every head of the
 * workspace, once per write). Apart from the upsert: as one statement with it, Citus ran each
 * part as a subplan of its own.
 */
export const HEADS_BEFORE = `
  SELECT o.record_id FROM ${NEW_HEADS}
  CROSS JOIN LATERAL (SELECT o.record_id FROM heads o WHERE o.workspace_id = $1 AND o.entity = h.entity
    AND o.collection = h.collection AND o.key = h.key AND o.status = h.status AND o.seq < h.seq LIMIT 1) o`;

/** Moves each slot's head forward; an older seq never replaces a newer head. */
export const UPSERT_HEADS = `
  INSERT INTO heads (workspace_id, entity, collection, key, status, record_id, seq, tombstone)
  SELECT $1, h.entity, h.collection, h.key, h.status, h.record_id, h.seq, h.tombstone FROM ${NEW_HEADS}
  ON CONFLICT (workspace_id, entity, collection, key, status) DO UPDATE
    SET record_id = excluded.record_id, seq = excluded.seq, tombstone = excluded.tombstone
    WHERE heads.seq < excluded.seq`;

const FULL_COLUMNS = `id, seq, collection, collection_version, collection_hash, entity, type, key, status,
  ready, tombstone, text, content, scores, annotations, citations, derived_from, depth, run_id,
  occurred_at, created_at`;

export const GET_RECORD = `SELECT ${FULL_COLUMNS} FROM records WHERE workspace_id = $1 AND id = $2`;

export const RECORD_EXISTS = "SELECT 1 FROM records WHERE workspace_id = $1 AND id = $2";

/**
 * The records naming $2 as a provenance parent, newest first (GET /records/{id}/cited-by): the
 * partial GIN index on derived_from (migration 0013) finds them.
 */
export const CITED_BY = `
  SELECT ${FULL_COLUMNS} FROM records
  WHERE workspace_id = $1 AND derived_from <> '{}' AND derived_from @> ARRAY[$2::uuid]
    AND ($3::bigint IS NULL OR seq < $3)
  ORDER BY seq DESC LIMIT $4`;

/**
 * A page of entities by name in byte order (GET /entities): $2 a LIKE pattern (the prefix with its
 * wildcards escaped, then %), $3 the last name of the previous page, $4 the page size plus one.
 * Both walk records_entity_names (migration 0019), an index-only scan of the page's entities;
 * last_at is the created_at of each entity's newest record, one probe by seq.
 */
export const ENTITY_PAGE = `
  SELECT g.entity, g.records, g.last_seq, r.created_at AS last_at
  FROM (
    SELECT entity COLLATE "C" AS entity, count(*)::int AS records, max(seq) AS last_seq
    FROM records
    WHERE workspace_id = $1 AND collection <> '_system'
      AND ($2::text IS NULL OR entity COLLATE "C" LIKE $2)
      AND ($3::text IS NULL OR entity COLLATE "C" > $3)
    GROUP BY entity COLLATE "C"
    ORDER BY entity COLLATE "C"
    LIMIT $4) g
  JOIN records r ON r.workspace_id = $1 AND r.seq = g.last_seq
  ORDER BY g.entity COLLATE "C"`;

/** Filters shared by timeline and delta: entity, collections, types, status, _system rows. */
const FILTERS = `workspace_id = $1
  AND ($2::text IS NULL OR entity = $2)
  AND ($3::text[] IS NULL OR collection = ANY($3::text[]))
  AND ($4::text[] IS NULL OR type = ANY($4::text[]))
  AND ($5::text IS NULL OR status = $5)
  AND ($6::boolean OR collection <> '_system')`;

/**
 * $9: as_of, the records created at or before it (memory as it was then); null for now. Compared
 * in milliseconds, the precision replies carry: a record's own created_at as as_of includes it.
 */
export const TIMELINE = `
  SELECT id, seq, collection, key, type, status, ready, tombstone, text, occurred_at, created_at
  FROM records WHERE ${FILTERS} AND ($7::bigint IS NULL OR seq < $7)
    AND ($9::timestamptz IS NULL OR date_trunc('milliseconds', created_at) <= $9)
  ORDER BY seq DESC LIMIT $8`;

/**
 * GET /records: the workspace's records across entities, newest first by the (workspace_id, seq)
 * key; $2 collection ($9, _system, only when named), $3 type, $4 status, $5/$6 created after and
 * before (exclusive, in the milliseconds replies carry), $7 the seq the page before ended at.
 */
export const LIST_RECORDS = `
  SELECT id, seq, entity, collection, key, type, status, ready, tombstone, text, occurred_at, created_at
  FROM records WHERE workspace_id = $1
    AND ($2::text IS NULL OR collection = $2) AND (collection <> $9 OR $2::text = $9)
    AND ($3::text IS NULL OR type = $3)
    AND ($4::text IS NULL OR status = $4)
    AND ($5::timestamptz IS NULL OR date_trunc('milliseconds', created_at) > $5)
    AND ($6::timestamptz IS NULL OR date_trunc('milliseconds', created_at) < $6)
    AND ($7::bigint IS NULL OR seq < $7)
  ORDER BY seq DESC LIMIT $8`;

/**
 * Records written per UTC day over the last $2 days ($3, _system, left out), every day listed:
 * the window's days from generate_series, each day's counts from the workspace's rows written
 * since the window began (a router query on one workspace's shard on Citus).
 */
export const DAILY_ACTIVITY = `
  WITH since AS (SELECT date_trunc('day', now() AT TIME ZONE 'UTC') - ($2::int - 1) * interval '1 day' AS day)
  SELECT to_char(d.day, 'YYYY-MM-DD') AS day, COALESCE(c.records, 0)::int AS records,
    COALESCE(c.derived, 0)::int AS derived
  FROM since, generate_series(since.day, since.day + ($2::int - 1) * interval '1 day', interval '1 day') AS d(day)
  LEFT JOIN (
    SELECT date_trunc('day', r.created_at AT TIME ZONE 'UTC') AS day, count(*) AS records,
      count(*) FILTER (WHERE r.depth > 0) AS derived
    FROM records r, since
    WHERE r.workspace_id = $1 AND r.collection <> $3 AND r.created_at >= since.day AT TIME ZONE 'UTC'
    GROUP BY 1) c ON c.day = d.day
  ORDER BY d.day`;

export const DELTA = `
  SELECT id, seq, collection, entity, key, type, status, ready, tombstone, text, occurred_at, created_at
  FROM records WHERE ${FILTERS} AND seq > $7
  ORDER BY seq ASC LIMIT $8`;

/** What a rendered row shows of each record (search/prompt-rows.ts RowRecord), by id. */
export const ROW_RECORDS = `
  SELECT id, occurred_at, collection, type, key, scores, text
  FROM records WHERE workspace_id = $1 AND id = ANY($2::uuid[])`;

const HEAD_FIELDS = `r.id, r.seq, r.collection, r.collection_version, r.key, r.type, r.text, r.citations,
  r.status, r.ready, r.tombstone, r.scores, r.run_id, r.occurred_at, r.created_at`;

/**
 * DOCUMENT_HEADS as of $7: heads are today's, so each slot's head then is found among the
 * records created at or before $7 (the newest version of the status, records_slot_seq); a
 * tombstone there retracts the slot, so beliefs-only readers ($6) drop it after the choice.
 */
export const DOCUMENT_HEADS_AS_OF = `
  SELECT * FROM (
    SELECT DISTINCT ON (r.collection, r.key) ${HEAD_FIELDS}
    FROM records r
    WHERE r.workspace_id = $1 AND r.entity = $2 AND r.key IS NOT NULL AND r.status = $3
      AND ($4::text[] IS NULL OR r.collection = ANY($4::text[]))
      AND date_trunc('milliseconds', r.created_at) <= $7
    ORDER BY r.collection, r.key, r.seq DESC) h
  WHERE NOT ($6::boolean AND (h.tombstone OR h.collection = '_system'))
  ORDER BY h.collection, h.key
  LIMIT $5`;

/**
 * The live active value of one keyed slot, or none: a retraction needs a value to retract (the
 * slot's head, so one probe of the heads primary key).
 */
export const LIVE_SLOT = `
  SELECT record_id FROM heads
  WHERE workspace_id = $1 AND entity = $2 AND collection = $3 AND key = $4 AND status = 'active'
    AND NOT tombstone`;

export const DOCUMENT_HEADS = `
  SELECT ${HEAD_FIELDS}
  FROM heads h JOIN records r ON r.workspace_id = $1 AND r.id = h.record_id
  WHERE h.workspace_id = $1 AND h.entity = $2 AND h.status = $3
    AND ($4::text[] IS NULL OR h.collection = ANY($4::text[]))
    AND NOT ($6::boolean AND (r.tombstone OR h.collection = '_system'))
  ORDER BY h.collection, h.key
  LIMIT $5`;

/**
 * A slot's versions, newest first, each with its text (what the slot said then) and superseded_at: the created_at of the next version
 * of the same status (the one that replaced it, a tombstone included), null for the current one.
 * The next version may sit on a newer page, so it is looked up per row (records_slot_seq).
 */
export const HISTORY = `
  SELECT r.id, r.seq, r.collection, r.collection_version, r.collection_hash, r.key, r.type, r.status,
    r.text, r.content, r.tombstone, r.ready, r.run_id, r.citations, r.depth, r.occurred_at, r.created_at,
    (SELECT n.created_at FROM records n
      WHERE n.workspace_id = $1 AND n.entity = r.entity AND n.collection = r.collection
        AND n.key = r.key AND n.status = r.status AND n.seq > r.seq
      ORDER BY n.seq LIMIT 1) AS superseded_at
  FROM records r
  WHERE r.workspace_id = $1 AND r.entity = $2 AND r.collection = $3 AND r.key = $4
    AND ($5::bigint IS NULL OR r.seq < $5)
  ORDER BY r.seq DESC LIMIT $6`;

export const GET_CURSOR =
  "SELECT consumer, entity, position, scope_hash, updated_at FROM cursors WHERE workspace_id = $1 AND consumer = $2";

export const LOCK_CURSOR = `${GET_CURSOR} FOR UPDATE`;

export const UPSERT_CURSOR = `
  INSERT INTO cursors (workspace_id, consumer, entity, position, scope_hash, updated_at) VALUES ($1, $2, $3, $4, $5, now())
  ON CONFLICT (workspace_id, consumer) DO UPDATE
    SET entity = excluded.entity, position = excluded.position, scope_hash = excluded.scope_hash,
      updated_at = excluded.updated_at
  RETURNING consumer, entity, position, scope_hash, updated_at`;

export const LAST_SEQ = "SELECT last_seq FROM workspace_counters WHERE workspace_id = $1";

export const CONTRACT_USAGE = `
  SELECT collection, collection_version AS version, collection_hash AS hash, count(*)::int AS count
  FROM records WHERE workspace_id = $1 AND collection <> $2
  GROUP BY collection, collection_version, collection_hash
  ORDER BY collection, collection_version`;

export const CONTRACT_CONTENTS = `
  SELECT content FROM records
  WHERE workspace_id = $1 AND collection = $2 AND collection_version = $3 AND collection_hash = $4
  LIMIT $5`;

export const MOVE_CONTRACT = `
  UPDATE records SET collection_hash = $5
  WHERE workspace_id = $1 AND collection = $2 AND collection_version = $3 AND collection_hash = $4`;

/** Unready rows of an enrichment job, with the embedding spaces they already have. */
export const PENDING_ENRICHMENT = `
  SELECT r.id, r.collection, r.collection_version, r.text, r.content, r.scores, r.annotations,
    COALESCE((SELECT array_agg(e.space) FROM embeddings e WHERE e.workspace_id = $1 AND e.record_id = r.id), '{}') AS spaces
  FROM records r
  WHERE r.workspace_id = $1 AND r.id = ANY($2::uuid[]) AND NOT r.ready
  ORDER BY r.seq`;

// Ids, spaces and each vector as a text literal ('[...]' for vector, '{...}' for real[]): parsed
// once by the column type's input function (as jsonb they were parsed twice, a tenth of a drain).
const EMBEDDING_ROWS = "FROM unnest($2::uuid[], $3::text[], $4::text[]) AS e(record_id, space, embedding)";

// Of the rows holding one vector in a workspace's space, the first stored is the lead, the only
// one the space's HNSW index holds; the rest are its copies, which a walk finds through it
// (migration 0027). vhash groups them (vector-sql.ts vectorHashSql).
// OFFSET 0 keeps each vector parsed once: a subquery pulled up would parse it at every use.
const VECTOR_ROWS = `FROM unnest($2::uuid[], $3::text[], $4::text[]) WITH ORDINALITY AS e(record_id, space, embedding, n),
  LATERAL (SELECT e.embedding::vector AS embedding OFFSET 0) v, LATERAL (SELECT ${vectorHashSql("v.embedding")} AS vhash) h`;

// $5: store them deferred (out of the HNSW index), where their space's index can cover them later.
const DEFERRED = `$5::boolean AND EXISTS (
      SELECT 1 FROM vector_indexes x WHERE x.space = e.space AND x.dimensions = vector_dims(v.embedding))`;

/**
 * The first row of each vector the workspace's space does not hold yet, as its lead; returns
 * them. Where the vector has a lead, the conflict locks it (the update's WHERE false changes
 * nothing) so an erasure of its record waits and then promotes a copy this inserts after
 * (INSERT_EMBEDDING_COPIES). The arbiter is the lead index alone: the caller sends each
 * (record, space) once, and only spaces its records did not hold when its job read them (a
 * concurrent job that stored one since fails this statement, and the job is retried). Citus
 * plans no correlated subquery beside unnest, so the statement cannot check that itself.
 */
export const INSERT_EMBEDDING_LEADS = `
  INSERT INTO embeddings (workspace_id, record_id, space, embedding, deferred, vhash)
  SELECT DISTINCT ON (e.space, h.vhash) $1, e.record_id, e.space, v.embedding, ${DEFERRED}, h.vhash
  ${VECTOR_ROWS}
  ORDER BY e.space, h.vhash, e.n
  ON CONFLICT (workspace_id, space, vhash) WHERE lead DO UPDATE SET lead = true WHERE false
  RETURNING record_id, space`;

/** The rows INSERT_EMBEDDING_LEADS left: copies of a lead, out of the HNSW indexes. */
export const INSERT_EMBEDDING_COPIES = `
  INSERT INTO embeddings (workspace_id, record_id, space, embedding, deferred, vhash, lead)
  SELECT $1, e.record_id, e.space, v.embedding, ${DEFERRED}, h.vhash, false
  ${VECTOR_ROWS}
  ON CONFLICT DO NOTHING`;

/** Whether jobs of a kind wait in the queue (an enrichment backlog). */
export const JOBS_QUEUED =
  "SELECT EXISTS (SELECT 1 FROM jobs WHERE state = 'queued' AND kind = $1) AS queued";

export const INSERT_EMBEDDINGS_REAL = `
  INSERT INTO embeddings (workspace_id, record_id, space, embedding)
  SELECT $1, e.record_id, e.space, e.embedding::real[] ${EMBEDDING_ROWS}
  ON CONFLICT DO NOTHING`;

/**
 * Merges processor results; a complete row becomes ready with its full-text vector. The id list
 * ($3) lets the planner probe the primary key instead of scanning the workspace's records.
 */
export const APPLY_ENRICHMENT = `
  UPDATE records SET
    scores = u.scores || records.scores,
    annotations = u.annotations || records.annotations,
    ready = u.ready,
    search_text = CASE WHEN u.ready THEN u.search_text ELSE records.search_text END,
    search_length = CASE WHEN u.ready THEN engram_text_length(u.search_text) ELSE records.search_length END,
    search_config = CASE WHEN u.ready THEN u.config ELSE records.search_config END
  FROM (SELECT x.id, x.scores, x.annotations, x.ready, x.config,
          CASE WHEN x.ready THEN to_tsvector(x.config::regconfig, x.document) END AS search_text
        FROM jsonb_to_recordset($2::jsonb) AS x(id uuid, scores jsonb, annotations jsonb, ready boolean, config text, document text)) AS u
  WHERE records.workspace_id = $1 AND records.id = ANY($3::uuid[]) AND records.id = u.id AND NOT records.ready
  RETURNING records.id, records.seq, records.entity, records.collection, records.run_id, records.ready`;

/** Backfill: merges results, an existing value always winning; readiness is left alone. */
export const MERGE_RESULTS = `
  UPDATE records SET scores = u.scores || records.scores, annotations = u.annotations || records.annotations
  FROM jsonb_to_recordset($2::jsonb) AS u(id uuid, scores jsonb, annotations jsonb)
  WHERE records.workspace_id = $1 AND records.id = ANY($3::uuid[]) AND records.id = u.id`;

/** A backfill pass: the target's next records after the cursor, with their embedding spaces. */
export const BACKFILL_BATCH = `
  SELECT r.id, r.seq, r.collection, r.collection_version, r.text, r.content, r.scores, r.annotations,
    COALESCE((SELECT array_agg(e.space) FROM embeddings e WHERE e.workspace_id = $1 AND e.record_id = r.id), '{}') AS spaces
  FROM records r
  WHERE r.workspace_id = $1 AND r.collection = $2 AND r.collection_version = $3 AND r.seq > $4
  ORDER BY r.seq LIMIT $5`;

const BACKFILL_COLUMNS = `id, state, cursor_seq, scanned, annotated, last_error, collection, version, processor, max_rows,
  cancel_requested, job_id, created_at, updated_at`;

export const INSERT_BACKFILL = `
  INSERT INTO backfills (workspace_id, collection, version, processor, max_rows, cursor_seq)
  VALUES ($1, $2, $3, $4, $5, $6)
  ON CONFLICT (workspace_id, collection, version, processor) WHERE state IN ('queued', 'live') DO NOTHING
  RETURNING ${BACKFILL_COLUMNS}`;

/** Where a new slice starts: after the last slice of the same target that stopped at max_rows. */
export const LAST_SLICE_END = `
  SELECT cursor_seq FROM backfills
  WHERE workspace_id = $1 AND collection = $2 AND version = $3 AND processor = $4 AND state = 'done'
    AND max_rows IS NOT NULL AND scanned >= max_rows
  ORDER BY created_at DESC LIMIT 1`;

export const SET_BACKFILL_JOB = "UPDATE backfills SET job_id = $3 WHERE workspace_id = $1 AND id = $2";

export const GET_BACKFILL = `SELECT ${BACKFILL_COLUMNS} FROM backfills WHERE workspace_id = $1 AND id = $2`;

export const LIST_BACKFILLS = `SELECT ${BACKFILL_COLUMNS} FROM backfills WHERE workspace_id = $1 ORDER BY created_at DESC LIMIT 50`;

export const REQUEST_CANCEL = `
  UPDATE backfills SET cancel_requested = true, updated_at = now()
  WHERE workspace_id = $1 AND id = $2 AND state IN ('queued', 'live')`;

export const ADVANCE_BACKFILL = `
  UPDATE backfills SET state = $3, cursor_seq = $4, scanned = scanned + $5, annotated = annotated + $6,
    last_error = $7, updated_at = now()
  WHERE workspace_id = $1 AND id = $2
  RETURNING ${BACKFILL_COLUMNS}`;

/** Reindex targets: ready rows (not _system) after a seq, as seq ranges of at most $4 rows. */
export const REINDEX_RANGES = `
  SELECT min(seq) AS from_seq, max(seq) AS to_seq, count(*)::int AS count FROM (
    SELECT seq, (row_number() OVER (ORDER BY seq) - 1) / $4 AS part
    FROM records WHERE workspace_id = $1 AND ready AND collection <> $3 AND seq > $2
  ) parts GROUP BY part ORDER BY part`;

export const REINDEX_ROWS = `
  SELECT id, collection, collection_version, text, content FROM records
  WHERE workspace_id = $1 AND ready AND collection <> $4 AND seq BETWEEN $2 AND $3`;

/** Rebuilds the full-text vectors of ready rows; the records themselves are not rewritten. */
export const APPLY_SEARCH_TEXT = `
  UPDATE records SET search_text = u.search_text, search_length = engram_text_length(u.search_text),
    search_config = u.config
  FROM (SELECT x.id, x.config, to_tsvector(x.config::regconfig, x.document) AS search_text
        FROM jsonb_to_recordset($2::jsonb) AS x(id uuid, config text, document text)) AS u
  WHERE records.workspace_id = $1 AND records.id = ANY($3::uuid[]) AND records.id = u.id`;

/** A service-written audit row in _system (erasure, reindex, retention). */
export const INSERT_SYSTEM_RECORD = `
  INSERT INTO records (workspace_id, id, seq, collection, collection_version, collection_hash, entity, type,
    status, ready, content, payload_hash, occurred_at)
  VALUES ($1, $2, $3, $4, 0, '', $5, $6, 'active', true, $7, $8, now())`;

export const MISSING_VECTORS = `
  SELECT count(*)::int AS n FROM records r
  WHERE r.workspace_id = $1 AND r.ready AND r.collection = ANY($2::text[])
    AND NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.workspace_id = $1 AND e.record_id = r.id AND e.space = $3)`;

/**
 * Marks returned records accessed (record_access), leaving a mark made within the last minute
 * alone: such records are skipped before the insert, which would otherwise lock their rows even
 * where the conflict updates nothing. The check is a scalar subquery, one primary-key probe per
 * hit: as NOT EXISTS the planner merge-anti-joined every mark of the workspace, sorted (up to
 * 5 ms at 100k records). Only records that still exist are marked, and each is locked as it is
 * read (FOR KEY SHARE, what a foreign key's check would take, in one statement instead of a probe
 * per row): an erasure waits for the mark and then deletes it with the record
 * (DELETE_MARKS). A record an erasure is deleting is skipped, not waited for,
 * so a mark never waits on an erasure that waits on it. Rows go in id order, so concurrent marks
 * lock the marks they share in one order. Every search makes this write, so its commit does not
 * wait for the disk (synchronous_commit off for this statement's own transaction, set by the
 * filter of the rows it writes): the mark is visible at once, and a crash can lose only the last
 * fraction of a second of marks, never a record; a later durable commit (an erasure's) flushes
 * it first, as the log is written in order. Not on Citus, where the statement runs in the shard's
 * session (not the commit the client waits for) and, on a single node, left the setting on the
 * pooled session. A conflict (a mark made since the check) only moves a mark forward: Citus takes
 * no STABLE arithmetic in an ON CONFLICT clause, so the minute is the check's alone.
 */
export const markAccessedSql = (asyncCommit: boolean) => `
  INSERT INTO record_access (workspace_id, record_id, last_accessed)
  SELECT r.workspace_id, r.id, now() FROM records r
  WHERE r.workspace_id = $1 AND r.id = ANY($2::uuid[])${
    asyncCommit ? "\n    AND set_config('synchronous_commit', 'off', true) IS NOT NULL" : ""
  }
    AND coalesce((SELECT a.last_accessed FROM record_access a WHERE a.workspace_id = $1 AND a.record_id = r.id),
      '-infinity') < now() - interval '1 minute'
  ORDER BY r.id
  FOR KEY SHARE OF r SKIP LOCKED
  ON CONFLICT (workspace_id, record_id) DO UPDATE SET last_accessed = excluded.last_accessed
    WHERE record_access.last_accessed < excluded.last_accessed`;

/** A new workspace's counters row: its record sequence (LOCK_SEQ) and term statistics flag. */
export const INSERT_COUNTER = "INSERT INTO workspace_counters (workspace_id) VALUES ($1)";

/**
 * An import: the counter continues after the exported one (records erased at the top of the source
 * keep their seqs used, so no cursor past them misses a new record); the term statistics are
 * rebuilt once.
 */
export const CONTINUE_COUNTER = `
  UPDATE workspace_counters SET last_seq = $2, text_stats_built = false WHERE workspace_id = $1`;

/** Access marks hold no foreign key (migration 0017): they go after the deleted workspace's records. */
export const DELETE_WORKSPACE_MARKS = "DELETE FROM record_access WHERE workspace_id = $1";

/**
 * Erasure: deletes the records $2, returning each removed row's slot and its created_at as text:
 * read back as timestamptz in the same transaction (one session) it is exact to the microsecond,
 * which a JavaScript Date is not. The cast is outside the DELETE: Citus takes no STABLE call in a
 * RETURNING clause.
 */
export const DELETE_RECORDS = `
  WITH removed AS (
    DELETE FROM records WHERE workspace_id = $1 AND id = ANY($2::uuid[])
    RETURNING entity, collection, key, status, created_at)
  SELECT entity, collection, key, status, created_at::text AS created_at FROM removed`;

/**
 * Erasure: the access marks of removed records (run after the delete): record_access has no foreign key
 * (migration 0017); a search marking one of them held its lock until it committed, so its mark
 * is visible here.
 */
export const DELETE_MARKS =
  "DELETE FROM record_access WHERE workspace_id = $1 AND record_id = ANY($2::uuid[])";

/** Erasure, before the delete: the vectors whose lead an erased record holds (src/records/vector-leads.ts). */
export const ERASED_LEADS = `
  SELECT DISTINCT space, vhash FROM embeddings
  WHERE workspace_id = $1 AND record_id = ANY($2::uuid[]) AND lead AND vhash IS NOT NULL`;

/**
 * Erasure, after the delete: the earliest copy left of each vector whose lead went becomes its
 * lead (entering the space's HNSW index, or its deferred tail). The delete's locks keep any
 * copy being written meanwhile waiting on the erased lead, so none is left out.
 */
export const PROMOTE_COPIES = `
  UPDATE embeddings SET lead = true
  FROM (SELECT DISTINCT ON (c.space, c.vhash) c.record_id, c.space
        FROM unnest($2::text[], $3::uuid[]) AS g(space, vhash)
        JOIN embeddings c ON c.workspace_id = $1 AND c.space = g.space AND c.vhash = g.vhash AND NOT c.lead
        ORDER BY c.space, c.vhash, c.seq) p
  WHERE embeddings.workspace_id = $1 AND embeddings.record_id = p.record_id AND embeddings.space = p.space`;

const SLOTS = "jsonb_to_recordset($2::jsonb) AS s(entity text, collection text, key text, status text)";

/** Erasure: heads whose record was removed; returns their slots. */
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

/** Erasure: replay cursors scoped to a forgotten entity (their consumer name may carry it too). */
export const FORGET_CURSORS = "DELETE FROM cursors WHERE workspace_id = $1 AND entity = ANY($2::text[])";
