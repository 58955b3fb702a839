// SQL of the embeddings' vector indexes: the statements and builders of embedding-index.ts (a
// space's HNSW index, its predicates, the stored layout) and of vector-seal.ts (sealing deferred
// embeddings into their space's index). Builders take validated parts: numbers are truncated and
// a space's name is quoted as a literal here.
import { sqlLiteral } from "../platform/db/index.js";

/** The typed expression a space's HNSW index is built over (`type`: vector or halfvec, `n` dimensions). */
export function typedVectorSql(column: string, type: string, n: number): string {
  return `(${column}::${type}(${n}))`;
}

/** The partial-index predicate of a space; a query must repeat it for the planner to use the index. */
export function spacePredicateSql(alias: string, space: string, dimensions: number): string {
  return `${alias}.space = ${sqlLiteral(space)} AND vector_dims(${alias}.embedding) = ${Math.trunc(dimensions)}`;
}

/**
 * The rows a space's index holds of each vector in a workspace: its lead alone, whose copies a walk
 * reaches through it (migration 0027, src/records/vector-leads.ts).
 */
export function leadSql(alias: string): string {
  return `${alias}.lead`;
}

/**
 * The group of a stored vector (migration 0027): the md5 of its binary form (pgvector's send
 * function: no text formatting of its numbers), as a uuid.
 */
export function vectorHashSql(vector: string): string {
  return `md5(vector_send(${vector}))::uuid`;
}

/**
 * The group columns of embedding rows inserted by one statement into the workspace $1 from a
 * row source (`row`: its space and embedding, `order`: its order), where no statement before
 * it in the transaction stored copies of its vectors (an import's): the first row of each vector
 * not yet led in the workspace leads it.
 */
export function embeddingLeadValues(row: string, order: string): { vhash: string; lead: string } {
  const vhash = vectorHashSql(`${row}.embedding`);
  return {
    vhash,
    lead: `row_number() OVER (PARTITION BY ${row}.space, ${vhash} ORDER BY ${order}) = 1 AND NOT EXISTS (
            SELECT 1 FROM embeddings o WHERE o.workspace_id = $1 AND o.space = ${row}.space AND o.vhash = ${vhash} AND o.lead)`,
  };
}

/**
 * A lead of the workspace's space (`alias`, reached by a walk) and its copies, as `x.id`: the
 * record ids holding its vector. The copies are found by their group (the copies index) and
 * checked equal, so a vhash collision never passes off another vector as the lead's.
 */
export function withCopiesSql(alias: string, workspace: string): string {
  return `CROSS JOIN LATERAL (SELECT ${alias}.record_id AS id UNION ALL
      SELECT c.record_id FROM embeddings c WHERE c.workspace_id = ${workspace} AND c.space = ${alias}.space
        AND c.vhash = ${alias}.vhash AND NOT c.lead AND c.embedding = ${alias}.embedding) x`;
}

/**
 * The rows a space's index holds beside the space predicate: every row not deferred, and the
 * deferred rows up to the seq its build covered (src/records/vector-seal.ts).
 */
export function coveredSql(alias: string, builtThrough: number): string {
  return `(NOT ${alias}.deferred OR ${alias}.seq <= ${Math.trunc(builtThrough)})`;
}

/** The leads of a space: the rows a walk of its index reads (before its build's cover). */
export function spaceLeadsSql(alias: string, space: string, dimensions: number): string {
  return `${spacePredicateSql(alias, space, dimensions)} AND ${leadSql(alias)}`;
}

/** What a space's HNSW index built through `builtThrough` holds: its predicate, repeated by the walk. */
export function hnswIndexWhereSql(space: string, dimensions: number, builtThrough: number): string {
  return `${spacePredicateSql("embeddings", space, dimensions)} AND ${coveredSql("embeddings", builtThrough)} AND ${leadSql("embeddings")}`;
}

/** Rows matching `predicate` that the index built through `builtThrough` covers. */
export function coveredRowsSql(predicate: string, alias: string, builtThrough: number): string {
  return `${predicate} AND ${coveredSql(alias, builtThrough)}`;
}

/** The deferred rows of a space past its build: a query scans them exactly. */
export function deferredTailSql(alias: string, builtThrough: number, predicate: string): string {
  return `${alias}.deferred AND ${alias}.seq > ${Math.trunc(builtThrough)} AND ${predicate}`;
}

/** CREATE INDEX of an HNSW index over a space's typed expression, partial on `where`. */
export function createHnswIndexSql(index: {
  name: string;
  index: { expression: string; type: string };
  where: string;
  concurrently: boolean;
}): string {
  return `CREATE INDEX ${index.concurrently ? "CONCURRENTLY " : ""}${index.name} ON embeddings
    USING hnsw (${index.index.expression} ${index.index.type}_cosine_ops)
    WHERE ${index.where}`;
}

/**
 * Drops an index by name: concurrently (a seal's, beside searches) it may already be gone, as a
 * failed build may have left none; in place (a layout change, in its transaction) it exists.
 */
export function dropIndexSql(name: string, options: { concurrently: boolean }): string {
  return options.concurrently ? `DROP INDEX CONCURRENTLY IF EXISTS ${name}` : `DROP INDEX ${name}`;
}

// Two workspaces publishing the same new space at once would race on the index name, and two
// processes starting at once would both convert the column.
export const INDEX_LOCK = "SELECT pg_advisory_xact_lock(hashtextextended('engram.space-indexes', 0))";

/** Whether a space has its vector_indexes row, or an index from before deferral (the bare prefix, $3). */
export const SPACE_INDEXED = `SELECT 1 FROM vector_indexes WHERE space = $1 AND dimensions = $2
       UNION ALL SELECT 1 FROM pg_indexes WHERE tablename = 'embeddings' AND indexname = $3`;

/** A new space's index row: it covers no deferred row yet. */
export const INSERT_VECTOR_INDEX =
  "INSERT INTO vector_indexes (space, dimensions, index_name) VALUES ($1, $2, $3)";

/** How far a space's index covers (searches cache it briefly). */
export const SPACE_STATE =
  "SELECT index_name, built_through, built_rows FROM vector_indexes WHERE space = $1 AND dimensions = $2";

/** A workspace's vectors of a space, counted up to $3: few enough, its searches scan them exactly. */
export const WORKSPACE_SPACE_ROWS = `SELECT count(*)::float8 AS n FROM
  (SELECT 1 FROM embeddings WHERE workspace_id = $1 AND space = $2 LIMIT $3) counted`;

/** The stored column's type: vector or real[] (the layout). */
export const STORED_COLUMN_TYPE = `SELECT format_type(atttypid, atttypmod) AS type FROM pg_attribute
     WHERE attrelid = 'embeddings'::regclass AND attname = 'embedding'`;

// What a layout change would convert or drop: the stored vectors, and the spaces' HNSW indexes.
export const STORED = `SELECT (SELECT count(*)::int FROM embeddings) AS rows,
  (SELECT count(*)::int FROM pg_indexes WHERE tablename = 'embeddings' AND indexname LIKE 'embeddings\\_hnsw\\_%') AS indexes`;

/** To the pgvector layout: every stored vector rewritten. */
export const TO_VECTOR_COLUMN =
  "ALTER TABLE embeddings ALTER COLUMN embedding TYPE vector USING embedding::vector";

/** The (space, dimensions) pairs stored: each gets its index in the pgvector layout. */
export const STORED_SPACES = "SELECT DISTINCT space, vector_dims(embedding) AS dimensions FROM embeddings";

/** The spaces' HNSW indexes, which the exact layout drops. */
export const HNSW_INDEXES =
  "SELECT indexname FROM pg_indexes WHERE tablename = 'embeddings' AND indexname LIKE 'embeddings\\_hnsw\\_%'";

// Exact scans read every row; nothing is left for a later index build to cover.
export const UNDEFER_ALL =
  "DELETE FROM vector_indexes; UPDATE embeddings SET deferred = false WHERE deferred";

/** To the exact layout: every stored vector rewritten. */
export const TO_REAL_COLUMN =
  "ALTER TABLE embeddings ALTER COLUMN embedding TYPE real[] USING embedding::real[]";

// One sealer at a time across processes: two would build the same index twice.
const SEAL_LOCK = "hashtextextended('engram.vector-seal', 0)";

/** Takes the sealer lock, or answers that another process holds it. */
export const TRY_SEAL_LOCK = `SELECT pg_try_advisory_lock(${SEAL_LOCK}) AS held`;

/** Embedded storage's session is its one lasting connection: the lock is given back by hand. */
export const SEAL_UNLOCK = `SELECT pg_advisory_unlock(${SEAL_LOCK})`;

/** Every indexed space with how far its index covers, in a stable order. */
export const SEALED_SPACES =
  "SELECT space, dimensions, index_name, built_through, built_rows FROM vector_indexes ORDER BY space, dimensions";

export const TAIL = `
  SELECT count(*)::int AS rows, COALESCE(max(seq), 0) AS last FROM embeddings
  WHERE deferred AND space = $1 AND seq > $3 AND vector_dims(embedding) = $2`;

// Embeddings take their seq from one sequence: no more than this many rows of any space can lie
// past a build's last seq. Counting the tail itself reads every row of it (tens of thousands of
// vectors, a fifth of a server drain's time when it was asked every second).
export const SEQ_LAST = "SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS last FROM embeddings_seq";

export const SPACE_ROWS =
  "SELECT count(*)::int AS rows FROM embeddings WHERE space = $1 AND vector_dims(embedding) = $2";

// Each updated row version is inserted into the current index (its predicate now holds). Rows
// are split by seq among MERGE_STREAMS (vector-seal.ts) statements run at once: an insert is one backend's CPU.
export const MERGE = `
  UPDATE embeddings e SET deferred = false
  FROM (SELECT workspace_id, record_id, space FROM embeddings
        WHERE deferred AND space = $1 AND seq > $3 AND vector_dims(embedding) = $2 AND seq % $5 = $6
        ORDER BY seq LIMIT $4) t
  WHERE e.workspace_id = t.workspace_id AND e.record_id = t.record_id AND e.space = t.space`;

// Whether there is anything to seal or clean up: a deferred row past its space's build, or an
// index of a space's series that vector_indexes does not name. Asked on the pool every second,
// so that a worker opens its sealing connection only when there is work.
export const SEAL_WORK = `
  SELECT EXISTS (
      SELECT 1 FROM vector_indexes v JOIN LATERAL (
        SELECT 1 FROM embeddings e WHERE e.deferred AND e.space = v.space AND e.seq > v.built_through LIMIT 1) t ON true)
    OR EXISTS (
      SELECT 1 FROM pg_indexes i WHERE i.tablename = 'embeddings' AND i.indexname ~ '^embeddings_hnsw_[0-9a-f]{24}_[0-9]+$'
        AND NOT EXISTS (SELECT 1 FROM vector_indexes v WHERE v.index_name = i.indexname)) AS work`;

/** A bulk build's memory: the graph is built fast only while it fits. */
export const SET_BUILD_MEMORY = "SELECT set_config('maintenance_work_mem', $1, false)";

/** The build's backend, which the yield watch cancels. */
export const BACKEND_PID = "SELECT pg_backend_pid() AS pid";

// A session waiting for a lock on embeddings that the build's session holds: ANALYZE, VACUUM or
// DDL (plain writes take no lock a build conflicts with).
export const BLOCKED_BY_BUILD = `
  SELECT EXISTS (SELECT 1 FROM pg_locks l
    WHERE NOT l.granted AND l.relation = 'embeddings'::regclass AND $1::int = ANY(pg_blocking_pids(l.pid))) AS blocked`;

/** Cancels the build's statement once a session waits behind it. */
export const CANCEL_BACKEND = "SELECT pg_cancel_backend($1)";

/** Searches switch to the new index (built over every row up to $4). */
export const SWITCH_INDEX =
  "UPDATE vector_indexes SET index_name = $3, built_through = $4, built_rows = $5 WHERE space = $1 AND dimensions = $2";

/** The space's indexes ($1: their name prefix) other than the one vector_indexes names ($2). */
export const STRAY_INDEXES = `SELECT indexname FROM pg_indexes
     WHERE tablename = 'embeddings' AND left(indexname, length($1)) = $1 AND indexname <> $2`;
