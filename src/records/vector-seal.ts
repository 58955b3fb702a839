// Sealing deferred embeddings into their space's HNSW index (migration 0018). An HNSW insert
// walks the on-disk graph and re-prunes its neighbours one vector at a time: about 5x the CPU per
// vector of building the graph in memory (bench/notes/vectors-and-enrichment.md). So while an enrichment
// backlog waits, its embeddings are stored deferred and searched exactly, and this periodic task
// indexes them: a small tail row by row (an UPDATE that puts each into the current index), and on
// a server a large one by building the space's index anew with CREATE INDEX CONCURRENTLY over
// every row up to the tail's last seq, then switching vector_indexes to it and dropping the old
// one. Searches never wait for either, and find every row throughout (src/search/candidates.ts).
// Embedded storage only merges, in small batches once the backlog is gone: its one connection
// cannot build an index aside, and a build would stop every request for as long as it takes.
import type { Db, Queryable } from "../platform/db/index.js";
import { yieldTurn } from "../platform/event-loop.js";
import {
  canDeferVectors,
  createIndexSql,
  forgetSpaceStates,
  indexName,
  indexPrefix,
  type SpaceState,
} from "./embedding-index.js";
import { enrichmentWaits } from "./enrich.js";
import * as sql from "./vector-sql.js";

export interface SealOptions {
  /** A tail at least this long (and a quarter of the index) is built in bulk, not merged. */
  bulkMinRows: number;
  /** maintenance_work_mem of a bulk build: the graph is built fast only while it fits. */
  buildMemory: string;
  /** Rows merged per statement (each holds embedded storage's one connection). */
  mergeBatch: number;
  /** True once the caller is stopping: a merge stops between batches. */
  stopping?(): boolean;
}

export interface Sealed {
  space: string;
  dimensions: number;
  how: "merged" | "built";
  rows: number;
}

interface SpaceRow extends SpaceState {
  space: string;
  dimensions: number;
}

const MERGE_STREAMS = 2;

/** Whether a space's index can be built anew beside the one searches use: on a server. */
function buildsAside(db: Pick<Db, "kind">): boolean {
  return db.kind === "postgres";
}

/** Whether deferred embeddings wait to be sealed (or a failed build's index to be dropped). */
export async function sealWorkWaits(db: Db): Promise<boolean> {
  return canDeferVectors(db) && Boolean((await db.query<{ work: boolean }>(sql.SEAL_WORK)).rows[0]?.work);
}

/** Seals the deferred tail of every space that has one. */
export async function sealDeferredVectors(db: Db, options: SealOptions): Promise<Sealed[]> {
  if (!(await sealWorkWaits(db))) return [];
  return db.session(async (conn) => {
    const { rows: lock } = await conn.query<{ held: boolean }>(sql.TRY_SEAL_LOCK);
    if (!lock[0]?.held) return [];
    try {
      const sealed: Sealed[] = [];
      const { rows: spaces } = await conn.query<SpaceRow>(sql.SEALED_SPACES);
      for (const space of spaces) {
        await dropStrayIndexes(conn, space);
        const done = await sealSpace(db, conn, space, options);
        if (done) sealed.push(done);
      }
      return sealed;
    } finally {
      // Embedded storage's session is its one lasting connection.
      await conn.query(sql.SEAL_UNLOCK);
    }
  });
}

async function sealSpace(
  db: Db,
  conn: Queryable,
  space: SpaceRow,
  options: SealOptions,
): Promise<Sealed | undefined> {
  const args = [space.space, space.dimensions, space.built_through];
  const waits = await enrichmentWaits(conn);
  const bulk = buildsAside(db);
  // While more enrichment waits, embedded storage leaves the tail be (it merges once the backlog is
  // done, not in its way) and a server lets it grow into one build of at least `buildAt` rows, up
  // to twice the last build's (so each vector is rebuilt a bounded number of times and a search's
  // exact scan stays bounded).
  const buildAt = Math.max(options.bulkMinRows, 2 * space.built_rows);
  if (waits && (!bulk || (await tailBound(conn, space)) < buildAt)) return undefined;
  const tail = (await conn.query<{ rows: number; last: number }>(sql.TAIL, args)).rows[0] ?? {
    rows: 0,
    last: 0,
  };
  if (tail.rows === 0) return undefined;
  const base = { space: space.space, dimensions: space.dimensions };
  if (waits && tail.rows < buildAt) return undefined;
  if (bulk && (waits || tail.rows >= options.bulkMinRows)) {
    const all = await spaceRows(conn, space);
    // Once the queue is empty, building costs ~0.5 ms per vector of the whole space, merging
    // ~3 ms per tail row.
    if (waits || tail.rows * 4 >= all - tail.rows) {
      // A build that yielded to maintenance is tried again at a later seal.
      if (!(await build(db, conn, space, tail.last, all, options))) return undefined;
      return { ...base, how: "built", rows: all };
    }
  }
  const streams = bulk ? MERGE_STREAMS : 1;
  let merged = 0;
  for (;;) {
    // Embedded storage runs SQL on this thread: let requests in between statements.
    await yieldTurn();
    const counts = await Promise.all(
      Array.from({ length: streams }, (_, stream) =>
        db.query(sql.MERGE, [...args, options.mergeBatch, streams, stream]).then((r) => r.rowCount),
      ),
    );
    const rows = counts.reduce((a, b) => a + b, 0);
    db.noteWrites(rows, "embeddings");
    merged += rows;
    if (Math.max(...counts) < options.mergeBatch || options.stopping?.() || (await enrichmentWaits(conn)))
      break;
  }
  return { ...base, how: "merged", rows: merged };
}

/** At least as many rows as the space's deferred tail holds: the seqs handed out since its build. */
async function tailBound(conn: Queryable, space: SpaceRow): Promise<number> {
  const last = Number((await conn.query<{ last: string }>(sql.SEQ_LAST)).rows[0]?.last ?? 0);
  return last - Number(space.built_through);
}

async function spaceRows(conn: Queryable, space: SpaceRow): Promise<number> {
  return (
    (await conn.query<{ rows: number }>(sql.SPACE_ROWS, [space.space, space.dimensions])).rows[0]?.rows ?? 0
  );
}

const DEADLOCK = "40P01";

/** How often a build looks for maintenance it holds up: well within deadlock_timeout (1 s). */
const YIELD_CHECK_MS = 100;

/**
 * Builds the space's index anew over its `rows` rows up to seq `through`; false when it yielded.
 * CREATE INDEX CONCURRENTLY holds a lock on embeddings that ANALYZE and VACUUM need, and waits for
 * every transaction with an older snapshot, which ANALYZE takes before asking for its lock: the two
 * deadlock (40P01), and either may be the one that fails. So while the build runs, a watch on the
 * pool cancels it as soon as any session waits behind it; the invalid index it leaves is dropped
 * and the tail is built at a later seal.
 */
async function build(
  db: Db,
  conn: Queryable,
  space: SpaceRow,
  through: number,
  rows: number,
  options: SealOptions,
): Promise<boolean> {
  const name = indexName(space, through);
  await conn.query(sql.SET_BUILD_MEMORY, [options.buildMemory]);
  const pid = Number((await conn.query<{ pid: number }>(sql.BACKEND_PID)).rows[0]?.pid);
  const watch = yieldWatch(db, pid);
  try {
    await conn.exec(createIndexSql(space, through, true));
  } catch (error) {
    const yielded = (await watch.stop()) || (error as { code?: string }).code === DEADLOCK;
    if (!yielded) throw error;
    await conn.exec(sql.dropIndexSql(name, { concurrently: true }));
    return false;
  }
  await watch.stop();
  await conn.query(sql.SWITCH_INDEX, [space.space, space.dimensions, name, through, rows]);
  forgetSpaceStates(db);
  await conn.exec(sql.dropIndexSql(space.index_name, { concurrently: true }));
  return true;
}

/** Cancels the build's statement (backend `pid`) once a session waits behind it; stop() tells whether it did. */
function yieldWatch(db: Db, pid: number): { stop(): Promise<boolean> } {
  let cancelled = false;
  let running = true;
  const loop = (async () => {
    while (running && !cancelled) {
      await new Promise((resolve) => setTimeout(resolve, YIELD_CHECK_MS));
      if (!running) break;
      const blocked = (await db.query<{ blocked: boolean }>(sql.BLOCKED_BY_BUILD, [pid])).rows[0]?.blocked;
      if (blocked && running) {
        cancelled = true;
        await db.query(sql.CANCEL_BACKEND, [pid]);
      }
    }
  })().catch(() => undefined);
  return {
    async stop() {
      running = false;
      await loop;
      return cancelled;
    },
  };
}

/**
 * Drops the space's indexes vector_indexes does not name: a build that failed (CREATE INDEX
 * CONCURRENTLY leaves an invalid index behind) or stopped before the switch. Each would cost
 * every insert a second HNSW walk.
 */
async function dropStrayIndexes(conn: Queryable, space: SpaceRow): Promise<void> {
  const prefix = `${indexPrefix(space)}_`;
  const { rows } = await conn.query<{ indexname: string }>(sql.STRAY_INDEXES, [prefix, space.index_name]);
  for (const row of rows) await conn.exec(sql.dropIndexSql(row.indexname, { concurrently: true }));
}
