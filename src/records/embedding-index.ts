// Vector indexes per embedding space (docs/operations.md, "Vector layouts"). The embeddings table holds the
// vectors of every space in one untyped `vector` column, and an HNSW index needs one dimension
// count, so each (space, dimensions) gets a partial HNSW index over a typed expression:
// `embedding::vector(N)`, or `embedding::halfvec(N)` past the 2,000 dimensions pgvector indexes
// as `vector` (OpenAI's text-embedding-3-large has 3,072); a space wider than halfvec's 4,000 has
// no index and its searches scan exactly. A nearest-neighbour query uses the index when it
// orders by exactly that expression and repeats the index's predicate (space, vector_dims, and
// which deferred rows the index covers: src/records/vector-seal.ts), and scans the deferred rows
// it does not cover exactly. Without pgvector the column is real[] and searches scan exactly.
import type { EmbeddingSpace, SpaceIndexes } from "../catalog/index.js";
import { DatabaseSetupError, type Db, type Queryable } from "../platform/db/index.js";
import { sha256Hex } from "../platform/hash.js";
import * as sql from "./vector-sql.js";

/** The widest vectors pgvector's HNSW indexes as `vector`, and as half-precision `halfvec`. */
const VECTOR_INDEX_MAX = 2000;
const HALFVEC_INDEX_MAX = 4000;

export interface SpaceIndex {
  /** The typed expression the space's HNSW index is built over; queries order by it. */
  expression: string;
  /** Its type: a query vector is cast to it. */
  type: string;
}

/**
 * A vector's text form, as pgvector's input reads it (a query vector's, a stored one's): the JSON
 * of its numbers, all finite (the model router refuses any other).
 */
export function vectorLiteral(vector: number[]): string {
  return JSON.stringify(vector);
}

/**
 * The indexed expression of a space's vectors, or undefined when the space is too wide for an
 * HNSW index. Half precision changes the walk's order a little, not the similarity a search
 * reports (that is computed on the stored vector).
 */
export function spaceIndex(column: string, dimensions: number): SpaceIndex | undefined {
  const n = Math.trunc(dimensions);
  const type = n <= VECTOR_INDEX_MAX ? "vector" : n <= HALFVEC_INDEX_MAX ? "halfvec" : undefined;
  return type && { expression: sql.typedVectorSql(column, type, n), type };
}

/** The index names of a space share this prefix; each new build appends how far it covers. */
export function indexPrefix(space: EmbeddingSpace): string {
  return `embeddings_hnsw_${sha256Hex(`${space.space}\u0000${space.dimensions}`).slice(0, 24)}`;
}

/** A space's index names how far it covers (a space indexed before deferral: the bare prefix). */
export function indexName(space: EmbeddingSpace, builtThrough: number): string {
  return `${indexPrefix(space)}_${builtThrough}`;
}

// pgvector's default graph (m 16, ef_construction 64). Inserting into it is most of what
// enrichment costs (2 ms per embedding on a 2-core server at 100k), and sparser graphs are
// cheaper (m 12 / ef_construction 48: 1.2 ms), but on the bench's filtered workspace-wide reads
// they found less of the exact top 20 (0.77 against 0.81) unless ef_search doubled, which cost
// hybrid more than its latency target allows (bench/notes/vectors-and-enrichment.md).
/** CREATE INDEX of a space's HNSW index, covering the deferred rows up to builtThrough. */
export function createIndexSql(space: EmbeddingSpace, builtThrough: number, concurrently = false): string {
  const index = spaceIndex("embedding", space.dimensions);
  if (!index) throw new Error(`space ${space.space} (${space.dimensions} dimensions) cannot be indexed`);
  return sql.createHnswIndexSql({
    name: indexName(space, builtThrough),
    index,
    where: sql.hnswIndexWhereSql(space.space, space.dimensions, builtThrough),
    concurrently,
  });
}

/**
 * Gives each space that has no index one covering no deferred row yet, with its row in
 * vector_indexes. A space indexed before deferral existed (an index over every row under the bare
 * prefix, no row) keeps that index and is never deferred.
 */
async function createIndexes(tx: Queryable, spaces: EmbeddingSpace[]): Promise<void> {
  for (const space of spaces) {
    if (!spaceIndex("embedding", space.dimensions)) continue;
    const { rows } = await tx.query(sql.SPACE_INDEXED, [space.space, space.dimensions, indexPrefix(space)]);
    if (rows.length > 0) continue;
    await tx.exec(createIndexSql(space, 0));
    await tx.query(sql.INSERT_VECTOR_INDEX, [space.space, space.dimensions, indexName(space, 0)]);
  }
}

/** Creates the HNSW index of each space that has none yet (in the caller's transaction). */
export function spaceIndexes(db: Pick<Db, "hasVector">): SpaceIndexes {
  return {
    async prepare(tx: Queryable, spaces: EmbeddingSpace[]) {
      if (!db.hasVector || spaces.length === 0) return;
      await tx.query(sql.INDEX_LOCK);
      await createIndexes(tx, spaces);
      forgetSpaceStates(db);
    },
  };
}

/**
 * Whether embeddings may be stored deferred, out of their space's HNSW index until the worker
 * seals them (src/records/vector-seal.ts): wherever vectors are indexed. A space indexed before
 * deferral existed (its index over every row, no vector_indexes row) still never defers.
 * Not on Citus: sealing reads every workspace's tail of a space in one global seq order, and a
 * shard's HNSW graph holds only its own workspaces, small enough to take each vector as it comes.
 */
export function canDeferVectors(db: Pick<Db, "hasVector" | "distributed">): boolean {
  return db.hasVector && !db.distributed;
}

export interface SpaceState {
  index_name: string;
  built_through: number;
  built_rows: number;
}

/** Values read from a database, kept per database and key for ttlMs, at most `max` keys each. */
function perDbCache<T>(ttlMs: number, max: number) {
  const byDb = new WeakMap<object, Map<string, { at: number; value: T }>>();
  return {
    async get(db: object, key: string, load: () => Promise<T>): Promise<T> {
      const cache = byDb.get(db) ?? new Map();
      byDb.set(db, cache);
      const hit = cache.get(key);
      if (hit && performance.now() - hit.at < ttlMs) return hit.value;
      const value = await load();
      if (cache.size >= max) cache.delete(cache.keys().next().value as string);
      cache.delete(key);
      cache.set(key, { at: performance.now(), value });
      return value;
    },
    forget(db: object): void {
      byDb.delete(db);
    },
  };
}

/** Keys cached per database, at most: the spaces, and the workspaces searched recently. */
const CACHE_MAX = 10_000;

// Searches read a space's state from this cache. A stale state is never wrong, only slower: a
// query repeating an older built_through is still implied by the newer index's predicate (the
// planner walks it), filters out the rows built since, and finds them in its exact tail scan.
const stateCache = perDbCache<SpaceState | undefined>(2_000, CACHE_MAX);

export function forgetSpaceStates(db: object): void {
  stateCache.forget(db);
}

function spaceState(db: Db, space: string, dimensions: number): Promise<SpaceState | undefined> {
  return stateCache.get(db, `${space}\u0000${dimensions}`, async () => {
    const { rows } = await db.query<SpaceState>(sql.SPACE_STATE, [space, dimensions]);
    return rows[0];
  });
}

// A workspace-wide search walks its space's HNSW index, which holds every workspace's vectors,
// and keeps its own workspace's neighbours as pgvector's iterative scan yields them. The walk is
// approximate: some searches miss a few of their exact nearest. A workspace holding at most
// VECTOR_EXACT_ROWS vectors of the space scans them exactly instead, at a few milliseconds at
// that size, and finds exactly its nearest (docs/scaling.md "Vector search among tenants").

// Whether a workspace passes the threshold changes slowly: counting once in 30 s is enough. The
// count stops past the threshold, so it costs at most a read of that many index entries (a whole
// count of a 1M-vector workspace took 190 ms, more than its search).
const countCache = perDbCache<boolean>(30_000, CACHE_MAX);

/** Whether a workspace holds at most `most` vectors of a space, as counted within the last 30 s. */
export function fewVectors(
  db: Db,
  read: { workspaceId: string; space: string; most: number },
): Promise<boolean> {
  return countCache.get(db, `${read.workspaceId}\u0000${read.space}\u0000${read.most}`, async () => {
    const { rows } = await db.query<{ n: number }>(sql.WORKSPACE_SPACE_ROWS, [
      read.workspaceId,
      read.space,
      read.most + 1,
    ]);
    return Number(rows[0]?.n ?? 0) <= read.most;
  });
}

/**
 * How a nearest-neighbour query reads a space: its index's rows, and its deferred tail. Both hold
 * leads only: a query expands each to its copies (src/records/vector-leads.ts).
 */
export interface SpaceReads extends SpaceIndex {
  /** The join predicate of the rows the HNSW index holds: a query walks the index with it. */
  indexed: string;
  /** The deferred rows not yet in the index, to scan exactly (none where nothing can defer). */
  tail?: string;
  /** The join from a lead read (the alias) to the record ids holding its vector, as `x.id`. */
  withCopies(workspace: string): string;
}

/**
 * How a workspace's nearest-neighbour query walks a space's index. Undefined when it scans
 * exactly instead: the space is too wide to index, or the workspace holds at most exactRows of
 * its vectors.
 */
export async function spaceReads(
  db: Db,
  read: { alias: string; workspaceId: string; space: string; dimensions: number; exactRows: number },
): Promise<SpaceReads | undefined> {
  const { alias, space, dimensions } = read;
  const index = spaceIndex(`${alias}.embedding`, dimensions);
  if (!index) return undefined;
  if (await fewVectors(db, { workspaceId: read.workspaceId, space, most: read.exactRows })) return undefined;
  const predicate = sql.spaceLeadsSql(alias, space, dimensions);
  const withCopies = (workspace: string) => sql.withCopiesSql(alias, workspace);
  const state = await spaceState(db, space, dimensions);
  if (!state) return { ...index, indexed: predicate, withCopies };
  return {
    ...index,
    withCopies,
    indexed: sql.coveredRowsSql(predicate, alias, state.built_through),
    tail: sql.deferredTailSql(alias, state.built_through, predicate),
  };
}

async function storedColumnType(tx: Queryable): Promise<string | undefined> {
  const { rows } = await tx.query<{ type: string }>(sql.STORED_COLUMN_TYPE);
  return rows[0]?.type;
}

/** A stored layout change: the column type now, and what it converted, dropped or built. */
export interface LayoutChange {
  column: "vector" | "real[]";
  rows: number;
  /** HNSW indexes dropped (to real[]) or built (to vector). */
  indexes: number;
}

/** The one command that converts stored embeddings (docs/operations.md, Vector layouts). */
function convertCommand(wanted: "vector" | "real[]"): string {
  return `engram migrate --vector-layout ${wanted === "vector" ? "auto" : "exact"}`;
}

function mismatch(
  wanted: "vector" | "real[]",
  stored: { rows: number; indexes: number },
): DatabaseSetupError {
  const held = `${stored.rows} stored embeddings, ${stored.indexes} HNSW indexes`;
  return new DatabaseSetupError(
    wanted === "real[]"
      ? `the stored embeddings are in the pgvector layout (${held}) but this process serves the exact layout (VECTOR_LAYOUT=exact): run \`${convertCommand(wanted)}\` to convert them (it drops the HNSW indexes), or start without VECTOR_LAYOUT=exact`
      : `the stored embeddings are in the exact layout (real[], ${held}) but this server has pgvector: run \`${convertCommand(wanted)}\` to convert them and build their HNSW indexes, or set VECTOR_LAYOUT=exact to keep serving them exactly`,
  );
}

/**
 * Makes the stored embeddings match the layout this process serves (after migrations): `vector`
 * with one HNSW index per stored (space, dimensions), or real[] without them. Migration 0005
 * chose the column type by whether pgvector was installed then, so a server that gained pgvector
 * later, or one switched with VECTOR_LAYOUT, holds the other type. A start (convert unset)
 * changes the type only while nothing is stored (no embedding, no HNSW index) and otherwise
 * refuses, naming `engram migrate --vector-layout`: a conversion holds the table for as long as
 * it rewrites every vector, and dropping the indexes degrades search until they are rebuilt, so
 * it is the operator's step, never a side effect of how a process was started.
 * Returns the change made, if any.
 */
export async function alignEmbeddingLayout(
  db: Db,
  options: { convert?: boolean } = {},
): Promise<LayoutChange | undefined> {
  const wanted = db.hasVector ? "vector" : "real[]";
  if ((await storedColumnType(db)) === wanted) return undefined;
  return db.transaction(async (tx) => {
    await tx.query(sql.INDEX_LOCK);
    if ((await storedColumnType(tx)) === wanted) return undefined;
    const { rows: counted } = await tx.query<{ rows: number; indexes: number }>(sql.STORED);
    const stored = counted[0] ?? { rows: 0, indexes: 0 };
    if (!options.convert && (stored.rows > 0 || stored.indexes > 0)) throw mismatch(wanted, stored);
    let indexes = stored.indexes;
    if (db.hasVector) {
      await tx.exec(sql.TO_VECTOR_COLUMN);
      const { rows } = await tx.query<EmbeddingSpace>(sql.STORED_SPACES);
      await createIndexes(tx, rows);
      indexes = rows.filter((space) => spaceIndex("embedding", space.dimensions)).length;
    } else {
      const { rows } = await tx.query<{ indexname: string }>(sql.HNSW_INDEXES);
      for (const row of rows) await tx.exec(sql.dropIndexSql(row.indexname, { concurrently: false }));
      await tx.exec(sql.UNDEFER_ALL);
      await tx.exec(sql.TO_REAL_COLUMN);
    }
    forgetSpaceStates(db);
    return { column: wanted, rows: stored.rows, indexes };
  });
}
