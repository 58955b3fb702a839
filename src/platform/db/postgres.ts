import pg from "pg";
import type { Db, Queryable, QueryResult } from "./types.js";
import { HNSW_SESSION_SQL, WORKSPACE_LOCK_SQL } from "./types.js";

const INT8_OID = 20;

// See pglite.ts: bigints come back as numbers from both adapters.
const types = {
  getTypeParser(oid: number, format?: "text" | "binary") {
    if (oid === INT8_OID && format !== "binary") return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  },
};

// A server that does not answer within this time is treated as down (health answers 503).
const CONNECT_TIMEOUT_MS = 5_000;

// Session settings sent when each connection opens. JIT compilation costs more than it saves
// on Engram's queries: at 100k records (npm run bench) a graph view ran 34% faster without it
// and text search 11-16%; only the exact vector scan of servers without pgvector lost (2-13%).
// An `options` parameter in the connection string replaces this one.
const SESSION_OPTIONS = "-c jit=off";

function wrap(client: pg.Pool | pg.PoolClient): Queryable {
  return {
    async query<T>(text: string, params?: unknown[]): Promise<QueryResult<T>> {
      const result = await client.query(text, params as unknown[]);
      return { rows: result.rows as T[], rowCount: result.rowCount ?? result.rows.length };
    },
    // Without parameters node-postgres uses the simple protocol, which runs several statements.
    async exec(script: string): Promise<void> {
      await client.query(script);
    },
  };
}

export interface PostgresOptions {
  connectionString: string;
  poolSize?: number;
  onIdleError?: (error: Error) => void;
}

/** A PostgreSQL server through a node-postgres pool. */
export async function openPostgres(options: PostgresOptions): Promise<Db & { pool: pg.Pool }> {
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    options: SESSION_OPTIONS,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    types,
  });
  // An idle client losing its connection must not crash the process; the next query
  // gets a fresh connection or a clear error.
  pool.on("error", (error) => options.onIdleError?.(error));
  const hasVector = await enableVector(pool);
  if (hasVector) {
    // Every pooled connection searches vectors with the same HNSW settings: new connections
    // get them before their first query, the one idle connection enableVector used gets them now.
    pool.on("connect", (client) => void client.query(HNSW_SESSION_SQL).catch(() => undefined));
    await pool.query(HNSW_SESSION_SQL).catch(() => undefined);
  }

  async function transaction<T>(fn: (tx: Queryable) => Promise<T>, lockWorkspace?: string): Promise<T> {
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      if (lockWorkspace !== undefined) await client.query(WORKSPACE_LOCK_SQL, [lockWorkspace]);
      const result = await fn(wrap(client));
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  const root = wrap(pool);
  let closed = false;
  return {
    kind: "postgres",
    hasVector,
    pool,
    query: root.query,
    exec: root.exec,
    // The server's autovacuum keeps statistics current.
    noteWrites: () => undefined,
    transaction: (fn) => transaction(fn),
    withWorkspaceLock: (workspaceId, fn) => transaction(fn, workspaceId),
    // A dedicated connection: LISTEN belongs to a session, and pooled clients are shared.
    async listen(channel, onNotify) {
      const client = new pg.Client({ connectionString: options.connectionString, types });
      client.on("error", (error) => options.onIdleError?.(error));
      client.on("notification", () => onNotify());
      await client.connect();
      await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
      return async () => {
        await client.end().catch(() => undefined);
      };
    },
    async close() {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}

/**
 * Installs pgvector when the server offers it. Without it Engram keeps vectors in real[]
 * columns searched by an exact scan (CONVENTIONS.md, Storage). A failure to connect here is
 * not fatal: the server may come up later, and health reports it meanwhile.
 */
async function enableVector(pool: pg.Pool): Promise<boolean> {
  try {
    const { rows } = await pool.query(
      "SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector') AS installed, EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') AS available",
    );
    if (rows[0]?.installed) return true;
    if (!rows[0]?.available) return false;
    await pool.query("CREATE EXTENSION IF NOT EXISTS vector");
    return true;
  } catch {
    return false;
  }
}
