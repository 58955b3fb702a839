import { PGlite, type Transaction } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { parseTimestamptz, TIMESTAMPTZ_OID } from "./timestamps.js";
import type { Db, Queryable, QueryResult } from "./types.js";
import { HNSW_SESSION_SQL, WORKSPACE_LOCK_SQL } from "./types.js";

const INT8_OID = 20;

// Sequence numbers and counters are bigint; they stay far below 2^53, so numbers are
// safe and both adapters return the same JavaScript types (timestamps: see timestamps.ts).
const parsers = { [INT8_OID]: (value: string) => Number(value), [TIMESTAMPTZ_OID]: parseTimestamptz };

/** Wraps a connection or transaction; answered() is called after each statement succeeds. */
function wrap(target: PGlite | Transaction, answered: () => void): Queryable {
  return {
    async query<T>(text: string, params?: unknown[]): Promise<QueryResult<T>> {
      const result = await target.query<T>(text, params);
      answered();
      return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length };
    },
    async exec(script: string): Promise<void> {
      await target.exec(script);
      answered();
    },
  };
}

export interface PgliteOptions {
  /** A directory path, or "memory://" for an in-memory database. */
  dataDir: string;
  /** A data directory dump (from dumpDataDir) to start from, used by tests to skip initdb. */
  loadDataDir?: Blob;
}

/** Embedded PostgreSQL. PGlite runs every statement on one connection, serialized. */
export async function openPglite(options: PgliteOptions): Promise<Db & { pglite: PGlite }> {
  const pglite = await PGlite.create(options.dataDir, {
    extensions: { vector },
    parsers,
    ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
  });
  await pglite.exec("CREATE EXTENSION IF NOT EXISTS vector");
  await pglite.exec(HNSW_SESSION_SQL);
  let answeredAt = 0;
  const answered = () => {
    answeredAt = performance.now();
  };
  const root = wrap(pglite, answered);
  // Without statistics the planner guesses one row per table and picks nested loops that turn
  // quadratic (a 1,500-record vector search took 670 ms instead of 33 ms; 150 records, 30 ms
  // instead of 17). Like autovacuum's defaults, re-analyze once 50 rows plus a tenth of those
  // already analyzed were written, in the background.
  let sinceAnalyze = 0;
  let analyzedRows = 0;
  let analyzing = false;
  const noteWrites = (rows: number) => {
    sinceAnalyze += rows;
    if (analyzing || sinceAnalyze < 50 + analyzedRows / 10) return;
    analyzing = true;
    analyzedRows += sinceAnalyze;
    sinceAnalyze = 0;
    void pglite
      .exec("ANALYZE")
      .catch(() => undefined)
      .finally(() => {
        analyzing = false;
      });
  };
  return {
    kind: "pglite",
    hasVector: true,
    pglite,
    query: root.query,
    exec: root.exec,
    noteWrites,
    answeredWithin: (ms) => !pglite.closed && performance.now() - answeredAt <= ms,
    transaction: (fn) => pglite.transaction((tx) => fn(wrap(tx, answered))),
    withWorkspaceLock: (workspaceId, fn) =>
      pglite.transaction(async (tx) => {
        await tx.query(WORKSPACE_LOCK_SQL, [workspaceId]);
        return fn(wrap(tx, answered));
      }),
    async listen(channel, onNotify) {
      const unlisten = await pglite.listen(channel, () => onNotify());
      return async () => {
        if (!pglite.closed) await unlisten();
      };
    },
    async close() {
      if (!pglite.closed) await pglite.close();
    },
  };
}
