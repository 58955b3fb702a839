import { randomBytes } from "node:crypto";
import { cp, readFile } from "node:fs/promises";
import { inject } from "vitest";
import { prepareDatabase } from "../../src/database.js";
import { wireModules } from "../../src/deps.js";
import { type Db, migrate, openPglite, openPostgres } from "../../src/platform/db/index.js";
import { withoutSessions } from "./admin.js";
import { type CitusCluster, createCitusDatabase, dropCitusDatabase } from "./citus.js";
import { databaseUrlFor, testVectorLayout } from "./urls.js";

export const onServer = Boolean(process.env.DATABASE_URL);
/** The server is a Citus coordinator (test/support/citus.ts): the schema is distributed. */
export const onCitus = inject("citus");

export interface TestDb {
  db: Db;
  /** The URL of this database on the server (undefined on PGlite). */
  url: string | undefined;
  close(): Promise<void>;
}

/** A database of its own on a Citus cluster with workers, built and migrated for one test file. */
async function createClusterDb(cluster: CitusCluster): Promise<TestDb> {
  const serverUrl = process.env.DATABASE_URL as string;
  const name = `engram_t_${randomBytes(4).toString("hex")}`;
  await createCitusDatabase(serverUrl, cluster, name);
  const url = databaseUrlFor(serverUrl, name);
  const db = await openPostgres({ connectionString: url, vectorLayout: testVectorLayout() });
  await prepareDatabase(db);
  return {
    db,
    url,
    async close() {
      await db.close();
      await dropCitusDatabase(serverUrl, cluster, name);
    },
  };
}

// Test files share their worker's modules (vitest.config.ts: isolate false), so the run's dump
// is read once per worker; every database loaded from it is still a fresh one.
let dump: { file: string; blob: Promise<Blob> } | undefined;
function pgliteDump(): Promise<Blob> {
  const file = inject("pgliteDump");
  if (dump?.file !== file) dump = { file, blob: readFile(file).then((bytes) => new Blob([bytes])) };
  return dump.blob;
}

/**
 * A fresh, migrated database: a PGlite loaded from the run's dump, a server clone, or on a Citus
 * cluster with workers one built for the file.
 */
export async function createTestDb(): Promise<TestDb> {
  // As every entry point does before its first write (src/deps.ts): tests write through the
  // modules directly too.
  wireModules();
  const cluster = inject("citusCluster");
  if (cluster) return createClusterDb(cluster);
  const template = inject("serverTemplate");
  if (template) {
    const serverUrl = process.env.DATABASE_URL as string;
    const name = `${template}_${randomBytes(4).toString("hex")}`;
    await withoutSessions(serverUrl, template, `CREATE DATABASE ${name} TEMPLATE ${template}`);
    const url = databaseUrlFor(serverUrl, name);
    const db = await openPostgres({ connectionString: url, vectorLayout: testVectorLayout() });
    // A copy does not inherit its template's ALTER DATABASE settings, which migrate sets on Citus
    // (the shards' HNSW settings): migrating the copy, with nothing left to apply, sets them.
    if (onCitus) await migrate(db);
    return {
      db,
      url,
      async close() {
        await db.close();
        await withoutSessions(serverUrl, name, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      },
    };
  }
  const db = await openPglite({ dataDir: "memory://", loadDataDir: await pgliteDump() });
  return { db, url: undefined, close: () => db.close() };
}

/**
 * Makes `dataDir` an embedded store already migrated (a copy of the run's template), so an
 * `engram` child started on it skips initdb and the migrations: seconds per child on PGlite.
 */
export async function copyMigratedDataDir(dataDir: string): Promise<void> {
  await cp(inject("pgliteDataDir"), dataDir, { recursive: true });
}
