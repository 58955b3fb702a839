import pg from "pg";
import { sha256Hex } from "../hash.js";
import { hasCitus } from "./citus.js";
import { checkStandardStrings } from "./literal.js";
import { DatabaseSetupError } from "./setup-error.js";
import { CREATE_VECTOR, CURRENT_DATABASE, VECTOR_STATE, WORKSPACE_LOCK_SQL } from "./sql.js";
import { parseTimestamptz, TIMESTAMPTZ_OID } from "./timestamps.js";
import type { Db, Queryable, QueryResult } from "./types.js";
import { HNSW_SETTINGS, PREPARED_CAPACITY, type VectorLayout } from "./types.js";

const INT8_OID = 20;

// See pglite.ts: bigints come back as numbers from both adapters.
const types = {
  getTypeParser(oid: number, format?: "text" | "binary") {
    if (oid === INT8_OID && format !== "binary") return (value: string) => Number(value);
    if (oid === TIMESTAMPTZ_OID && format !== "binary") return parseTimestamptz;
    return pg.types.getTypeParser(oid, format);
  },
};

// A server that does not answer within this time is treated as down (health answers 503).
const CONNECT_TIMEOUT_MS = 5_000;

// Session settings sent when each connection opens, so no query can run before them (a SET
// issued from the pool's connect event raced the caller's first query on the same client).
// JIT compilation costs more than it saves on Engram's queries: at 100k records (npm run bench)
// a graph view ran 34% faster without it and text search 11-16%; only the exact vector scan of
// servers without pgvector lost (2-13%). The HNSW settings are placeholders until pgvector loads
// in the session, and harmless on a server without it.
const SESSION_OPTIONS = ["-c jit=off", ...Object.entries(HNSW_SETTINGS).map(([k, v]) => `-c ${k}=${v}`)].join(
  " ",
);

/** Our session options first, then the connection string's own, which win where they overlap. */
function withSessionOptions(connectionString: string): string {
  const url = new URL(connectionString);
  const own = url.searchParams.get("options");
  url.searchParams.set("options", own ? `${SESSION_OPTIONS} ${own}` : SESSION_OPTIONS);
  return url.toString();
}

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

/**
 * Db.queryRepeated on a server: a named prepared statement, which each connection of the pool
 * parses once (node-postgres remembers which names a connection holds) and then only binds and
 * runs, with the plan it keeps once it has seen that a generic one does as well. Parsing and
 * planning were a third of a one-customer search's statement time on a 2-core VM (2.2 of 6.5 ms).
 * The name is the text's digest, so concurrent first runs agree on it. At most PREPARED_CAPACITY
 * texts are named (the ones past it run unnamed), so no connection holds more statements.
 */
function namedStatements(pool: pg.Pool) {
  // Text -> its name, once a run under it succeeded; a text is hashed only while names are left.
  const names = new Map<string, string>();
  return async <T>(text: string, params: unknown[]): Promise<QueryResult<T>> => {
    const name =
      names.get(text) ??
      (names.size < PREPARED_CAPACITY ? `engram_${sha256Hex(text).slice(0, 24)}` : undefined);
    const result = await pool.query(name ? { name, text, values: params } : { text, values: params });
    if (name) names.set(text, name);
    return { rows: result.rows as T[], rowCount: result.rowCount ?? result.rows.length };
  };
}

export interface PostgresOptions {
  connectionString: string;
  /** Default `auto`: pgvector when the server offers it. */
  vectorLayout?: VectorLayout;
  poolSize?: number;
  /** How long to wait for a connection, free or new (default CONNECT_TIMEOUT_MS). */
  connectTimeoutMs?: number;
  onIdleError?: (error: Error) => void;
}

/** A PostgreSQL server through a node-postgres pool. */
export async function openPostgres(options: PostgresOptions): Promise<Db & { pool: pg.Pool }> {
  const pool = new pg.Pool({
    connectionString: withSessionOptions(options.connectionString),
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
    types,
  });
  // An idle client losing its connection must not crash the process; the next query
  // gets a fresh connection or a clear error.
  pool.on("error", (error) => options.onIdleError?.(error));
  // What the database offers decides its layout, so a check that fails stops the open: a guess
  // would serve (and a start convert to) the wrong layout (docs/operations.md, Vector layouts).
  let hasVector: boolean;
  let distributed: boolean;
  try {
    await checkStandardStrings(wrap(pool));
    hasVector = options.vectorLayout === "exact" ? false : await enableVector(pool);
    distributed = await hasCitus(wrap(pool));
  } catch (error) {
    await pool.end();
    throw error;
  }

  async function transaction<T>(fn: (tx: Queryable) => Promise<T>, lockWorkspace?: string): Promise<T> {
    const client = await pool.connect();
    // A checked-out client has lost the pool's idle listener: a connection ended between two of
    // its queries (a server restart, an administrator's termination) would otherwise be an
    // unhandled 'error' event that ends the process. The broken client is destroyed on release.
    let lost: Error | undefined;
    const onLost = (error: Error) => {
      lost = error;
    };
    client.on("error", onLost);
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
      client.off("error", onLost);
      client.release(lost);
    }
  }

  async function session<T>(fn: (conn: Queryable) => Promise<T>): Promise<T> {
    const client = await pool.connect();
    const onLost = () => undefined;
    client.on("error", onLost);
    try {
      return await fn(wrap(client));
    } finally {
      client.off("error", onLost);
      // Closed, not returned: its settings and session locks end with it.
      client.release(true);
    }
  }

  const root = wrap(pool);
  const queryRepeated = namedStatements(pool);
  let closed = false;
  return {
    kind: "postgres",
    hasVector,
    distributed,
    pool,
    query: root.query,
    queryRepeated,
    exec: root.exec,
    // The server's autovacuum keeps statistics current.
    noteWrites: () => undefined,
    answeredWithin: () => false,
    connections: () => ({
      open: pool.totalCount,
      max: pool.options.max,
      idle: pool.idleCount,
      waiting: pool.waitingCount,
    }),
    transaction: (fn) => transaction(fn),
    session,
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
 * Installs pgvector when the server offers it; false only when the server does not have it at
 * all. Without it Engram keeps vectors in real[] columns searched by an exact scan
 * (docs/operations.md, "Vector layouts"). Any failure to find out is thrown, and so is a refused
 * CREATE EXTENSION (the user may not create it): the operator installs it or chooses the exact
 * layout, since serving exact on a server that has pgvector would be a silent degradation.
 */
async function enableVector(pool: pg.Pool): Promise<boolean> {
  const state = async () =>
    (await pool.query<{ installed: boolean; available: boolean }>(VECTOR_STATE)).rows[0];
  const before = await state();
  if (before?.installed) return true;
  if (!before?.available) return false;
  try {
    await pool.query(CREATE_VECTOR);
    return true;
  } catch (error) {
    // Another process starting at once may have created it first (IF NOT EXISTS is not atomic).
    if ((await state())?.installed) return true;
    const { rows } = await pool.query<{ db: string }>(CURRENT_DATABASE);
    throw new DatabaseSetupError(
      `pgvector is available on this server but could not be created in database ${rows[0]?.db}: ${(error as Error).message}. Create it as a superuser (CREATE EXTENSION vector; in that database), or set VECTOR_LAYOUT=exact to serve exact vector scans without it (docs/operations.md, Vector layouts)`,
      { cause: error },
    );
  }
}
