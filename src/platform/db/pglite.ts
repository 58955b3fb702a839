import { PGlite, type Transaction } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { checkStandardStrings } from "./literal.js";
import { type MaintenanceOptions, pgliteMaintenance } from "./pglite-maintenance.js";
import { preparedStatements } from "./pglite-statements.js";
import { CREATE_VECTOR, HNSW_SESSION_SQL, WORKSPACE_LOCK_SQL } from "./sql.js";
import { parseTimestamptz, TIMESTAMPTZ_OID } from "./timestamps.js";
import type { Db, Queryable, QueryResult } from "./types.js";

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
  /** When it vacuums (tests shorten the waits). */
  maintenance?: MaintenanceOptions;
}

/** Embedded PostgreSQL. PGlite runs every statement on one connection, serialized. */
export async function openPglite(options: PgliteOptions): Promise<Db & { pglite: PGlite }> {
  const pglite = await PGlite.create(options.dataDir, {
    extensions: { vector },
    parsers,
    ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
  });
  try {
    // Prepared statements inline their parameters as literals (pglite-statements.ts).
    await checkStandardStrings(pglite);
    await pglite.exec(CREATE_VECTOR);
    await pglite.exec(HNSW_SESSION_SQL);
  } catch (error) {
    await pglite.close();
    throw error;
  }
  let answeredAt = 0;
  const answered = () => {
    answeredAt = performance.now();
  };
  const root = wrap(pglite, answered);
  const maintenance = pgliteMaintenance(pglite, options.maintenance);
  const prepared = preparedStatements(pglite, root.query);
  // The one connection runs one call at a time: of the calls begun and not ended, all but one wait.
  let calls = 0;
  async function counted<R>(call: () => Promise<R>): Promise<R> {
    calls++;
    try {
      return await call();
    } finally {
      calls--;
    }
  }
  return {
    kind: "pglite",
    hasVector: true,
    distributed: false,
    pglite,
    query: (text, params) => counted(() => root.query(text, params)),
    exec: (script) => counted(() => root.exec(script)),
    queryRepeated: <T>(text: string, params: unknown[]) =>
      counted(async () => {
        const result = await prepared<T>(text, params);
        answered();
        return result;
      }),
    noteWrites: maintenance.noteWrites,
    answeredWithin: (ms) => !pglite.closed && performance.now() - answeredAt <= ms,
    connections: () => ({ open: 1, max: 1, idle: calls === 0 ? 1 : 0, waiting: Math.max(0, calls - 1) }),
    transaction: (fn) => counted(() => pglite.transaction((tx) => fn(wrap(tx, answered)))),
    session: (fn) => counted(() => fn(root)),
    withWorkspaceLock: (workspaceId, fn) =>
      counted(() =>
        pglite.transaction(async (tx) => {
          await tx.query(WORKSPACE_LOCK_SQL, [workspaceId]);
          return fn(wrap(tx, answered));
        }),
      ),
    async listen(channel, onNotify) {
      const unlisten = await pglite.listen(channel, () => onNotify());
      return async () => {
        if (!pglite.closed) await unlisten();
      };
    },
    async close() {
      maintenance.stop();
      if (!pglite.closed) await pglite.close();
    },
  };
}
