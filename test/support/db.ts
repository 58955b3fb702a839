import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import pg from "pg";
import { inject } from "vitest";
import { type Db, openPglite, openPostgres } from "../../src/platform/db/index.js";
import { databaseUrlFor, testVectorLayout } from "./urls.js";

export const onServer = Boolean(process.env.DATABASE_URL);

export interface TestDb {
  db: Db;
  /** The URL of this database on the server (undefined on PGlite). */
  url: string | undefined;
  close(): Promise<void>;
}

async function adminQuery(sql: string): Promise<void> {
  const admin = new pg.Client({
    connectionString: databaseUrlFor(process.env.DATABASE_URL as string, "postgres"),
  });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}

// Test files share their worker's modules (vitest.config.ts: isolate false), so the run's dump
// is read once per worker; every database loaded from it is still a fresh one.
let dump: { file: string; blob: Promise<Blob> } | undefined;
function pgliteDump(): Promise<Blob> {
  const file = inject("pgliteDump");
  if (dump?.file !== file) dump = { file, blob: readFile(file).then((bytes) => new Blob([bytes])) };
  return dump.blob;
}

/** A fresh, migrated database: a PGlite loaded from the run's dump, or a server clone. */
export async function createTestDb(): Promise<TestDb> {
  const template = inject("serverTemplate");
  if (template) {
    const name = `${template}_${randomBytes(4).toString("hex")}`;
    await adminQuery(`CREATE DATABASE ${name} TEMPLATE ${template}`);
    const url = databaseUrlFor(process.env.DATABASE_URL as string, name);
    const db = await openPostgres({ connectionString: url, vectorLayout: testVectorLayout() });
    return {
      db,
      url,
      async close() {
        await db.close();
        await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      },
    };
  }
  const db = await openPglite({ dataDir: "memory://", loadDataDir: await pgliteDump() });
  return { db, url: undefined, close: () => db.close() };
}
