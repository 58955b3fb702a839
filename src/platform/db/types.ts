export interface QueryResult<T> {
  rows: T[];
  rowCount: number;
}

/** Anything SQL can be sent to: the database itself or an open transaction. */
export interface Queryable {
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<QueryResult<T>>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(script: string): Promise<void>;
}

export type DbKind = "pglite" | "postgres";

/** Statement texts a session keeps prepared for Db.queryRepeated, at most. */
export const PREPARED_CAPACITY = 64;

/** The one database port. Adapters: PGlite (embedded) and a node-postgres pool (server). */
export interface Db extends Queryable {
  readonly kind: DbKind;
  /** True when the pgvector extension is installed (vector columns and HNSW indexes). */
  readonly hasVector: boolean;
  /**
   * True on a Citus coordinator (the database has the citus extension): per-workspace tables
   * are distributed by workspace (citus.ts), and statements that cannot route are avoided.
   */
  readonly distributed: boolean;
  /**
   * A statement whose text recurs with other parameters on hot paths (search's candidate lists
   * and bodies, authentication): PGlite keeps it prepared with a generic plan
   * (pglite-statements.ts), a server as a named statement on each connection (postgres.ts).
   */
  queryRepeated<T = Record<string, unknown>>(text: string, params: unknown[]): Promise<QueryResult<T>>;
  /** Runs fn in one transaction; commits when it resolves, rolls back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * Runs fn on one connection of its own, outside any transaction: for statements that cannot
   * run in one (CREATE INDEX CONCURRENTLY) and session settings or locks that must not outlive
   * fn. On a server the connection is closed after fn; PGlite has its one connection only.
   */
  session<T>(fn: (conn: Queryable) => Promise<T>): Promise<T>;
  /** A transaction that holds the workspace's advisory lock until it ends. */
  withWorkspaceLock<T>(workspaceId: string, fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * Tells the database how many rows a committed write inserted or rewrote, so that statistics
   * follow the data and dead row versions are reclaimed: PGlite has no autovacuum, so it
   * re-analyzes and vacuums itself (pglite-maintenance.ts); a server's autovacuum does this.
   * `table` names the one table a write touched, which is then maintained alone.
   */
  noteWrites(rows: number, table?: string): void;
  /**
   * True when a statement completed within the last ms milliseconds on a database that is still
   * open: evidence enough for a health probe that would otherwise queue behind running work on
   * PGlite's one connection. A pool's probe never queues, so the server adapter says false.
   */
  answeredWithin(ms: number): boolean;
  /** The connections behind the database at this moment (metrics). */
  connections(): ConnectionStats;
  /** Calls onNotify for each NOTIFY on the channel until the returned function is called. */
  listen(channel: string, onNotify: () => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export interface ConnectionStats {
  /** Connections open now, of at most `max`. */
  open: number;
  max: number;
  idle: number;
  /** Callers waiting for a connection. */
  waiting: number;
}

/**
 * Session settings of pgvector's HNSW scans. Searches filter the nearest neighbours (workspace,
 * visibility, scope), so the scan must go on past ef_search until enough rows pass: an
 * iterative scan in relaxed order (search re-ranks candidates anyway). ef_search 200: on the
 * bench's 100k server corpus a 200-deep read holds 0.83 of the exact top 20 (0.81 at 100) in the
 * same time; 400 raised hybrid's 84-deep read from 0.77 to 0.83 but cost it 7 ms
 * (bench/notes/vectors-and-enrichment.md).
 */
export const HNSW_SETTINGS: Readonly<Record<string, string>> = {
  "hnsw.iterative_scan": "relaxed_order",
  "hnsw.ef_search": "200",
};

/**
 * `auto`: vectors in pgvector columns under HNSW indexes wherever the database offers the
 * extension; `exact`: real[] columns and exact scans even where it does (VECTOR_LAYOUT).
 */
export type VectorLayout = "auto" | "exact";

/** Which engine and vector index serve searches (docs/operations.md "Vector layouts"; backend[].layout). */
export function storageLayout(db: Pick<Db, "kind" | "hasVector" | "distributed">): string {
  return `${db.distributed ? "citus" : db.kind}/${db.hasVector ? "hnsw" : "exact"}`;
}
