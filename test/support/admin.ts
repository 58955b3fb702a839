// Statements about databases (create, copy, drop), sent to the server's `postgres` database on a
// connection of their own: a test may restart the server (test/reliability/pg-restart.test.ts),
// and a client held for the run would then end its process.
import pg from "pg";
import { databaseUrlFor } from "./urls.js";

export async function adminQuery<T extends pg.QueryResultRow = pg.QueryResultRow>(
  serverUrl: string,
  sql: string,
  params?: unknown[],
): Promise<T[]> {
  const admin = new pg.Client({ connectionString: databaseUrlFor(serverUrl, "postgres") });
  await admin.connect();
  try {
    return (await admin.query<T>(sql, params)).rows;
  } finally {
    await admin.end();
  }
}

/**
 * Runs a statement that needs `database` free of sessions (a copy from it, a drop of it).
 * Citus keeps a maintenance daemon connected to each of its databases, which may come back right
 * after it is ended: its sessions are ended first, and the statement retried while it races them.
 */
export async function withoutSessions(serverUrl: string, database: string, sql: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await adminQuery(
      serverUrl,
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
      [database],
    );
    try {
      await adminQuery(serverUrl, sql);
      return;
    } catch (error) {
      if (attempt >= 20 || !/being accessed by other users/.test(String(error))) throw error;
    }
  }
}
