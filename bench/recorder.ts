// A Db that records the SQL an API request issues. The app is built on this proxy; while a
// recording is open (one request at a time, one client), every statement with its parameters
// and its time inside the request is kept, so the raw-SQL floor can replay exactly that SQL.
import type { Db, Queryable, QueryResult } from "../src/platform/db/index.js";

export interface Statement {
  sql: string;
  params: unknown[] | undefined;
  /** Time of the statement inside the API request (includes waiting for PGlite's one connection). */
  ms: number;
  /** Sent as Db.queryRepeated (kept prepared on PGlite), and replayed so. */
  repeated?: boolean;
}

export interface Recorder {
  /** Starts collecting statements (discarding any open recording). */
  start(): void;
  /** Stops collecting and returns what was issued since start(). */
  stop(): Statement[];
}

export function recordingDb(db: Db): { db: Db; recorder: Recorder } {
  let open: Statement[] | undefined;
  const record = async <T>(
    run: () => Promise<QueryResult<T>>,
    statement: Omit<Statement, "ms">,
  ): Promise<QueryResult<T>> => {
    if (!open) return run();
    const list = open;
    const t0 = performance.now();
    try {
      return await run();
    } finally {
      list.push({ ...statement, ms: performance.now() - t0 });
    }
  };
  const recorded = (target: Queryable): Queryable["query"] =>
    function query<T>(sql: string, params?: unknown[]): Promise<QueryResult<T>> {
      return record(() => target.query<T>(sql, params), { sql, params });
    };
  const wrap = (tx: Queryable): Queryable => ({ query: recorded(tx), exec: (script) => tx.exec(script) });
  const proxy: Db = {
    kind: db.kind,
    hasVector: db.hasVector,
    distributed: db.distributed,
    query: recorded(db),
    queryRepeated: <T>(sql: string, params: unknown[]) =>
      record(() => db.queryRepeated<T>(sql, params), { sql, params, repeated: true }),
    exec: (script) => db.exec(script),
    transaction: (fn) => db.transaction((tx) => fn(wrap(tx))),
    session: (fn) => db.session((conn) => fn(wrap(conn))),
    withWorkspaceLock: (workspaceId, fn) => db.withWorkspaceLock(workspaceId, (tx) => fn(wrap(tx))),
    noteWrites: (rows, table) => db.noteWrites(rows, table),
    answeredWithin: (ms) => db.answeredWithin(ms),
    connections: () => db.connections(),
    listen: (channel, onNotify) => db.listen(channel, onNotify),
    close: () => db.close(),
  };
  return {
    db: proxy,
    recorder: {
      start() {
        open = [];
      },
      stop() {
        const list = open ?? [];
        open = undefined;
        return list;
      },
    },
  };
}

/** The statement that records last access (src/records/access.ts): a write, reported apart. */
export function isTouch(statement: Statement): boolean {
  return /^\s*INSERT INTO record_access/i.test(statement.sql);
}
