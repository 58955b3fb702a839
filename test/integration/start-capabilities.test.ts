// Opening a database decides what it offers (pgvector, Citus, string literals as Engram writes
// them) and never guesses (docs/operations.md, Vector layouts): a check that cannot be answered
// stops the start, a pgvector the server has but this user may not create stops it with what to
// do, and a start in the other layout refuses a store holding embeddings and leaves it as it was.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prepareDatabase } from "../../src/database.js";
import {
  DatabaseSetupError,
  type Db,
  openPglite,
  openPostgres,
  type VectorLayout,
} from "../../src/platform/db/index.js";
import { adminQuery, withoutSessions } from "../support/admin.js";
import { createTestApp, type TestApp } from "../support/app.js";
import { createTestDb, onCitus, onServer } from "../support/db.js";
import { databaseUrlFor, testVectorLayout } from "../support/urls.js";
import { enrichAll } from "../support/worker.js";

const serverUrl = process.env.DATABASE_URL as string;

/** The stored layout: the embeddings column's type, its rows, the HNSW indexes and their rows. */
async function storedLayout(db: Db) {
  const { rows } = await db.query(
    `SELECT (SELECT format_type(atttypid, atttypmod) FROM pg_attribute
              WHERE attrelid = 'embeddings'::regclass AND attname = 'embedding') AS type,
            (SELECT count(*)::int FROM embeddings) AS embeddings,
            (SELECT count(*)::int FROM pg_indexes WHERE tablename = 'embeddings' AND indexdef ILIKE '%USING hnsw%') AS hnsw,
            (SELECT count(*)::int FROM vector_indexes) AS vector_indexes`,
  );
  return rows[0];
}

describe.skipIf(onServer)("embedded storage with standard_conforming_strings off", () => {
  it("refuses to open: its prepared statements inline parameters as quoted literals", async () => {
    const testDb = await createTestDb();
    const { pglite } = testDb.db as Db & { pglite: import("@electric-sql/pglite").PGlite };
    // Read from the data directory's postgresql.auto.conf when the store next opens.
    await pglite.exec("ALTER SYSTEM SET standard_conforming_strings = off");
    const dump = await pglite.dumpDataDir("none");
    await testDb.close();
    const opening = openPglite({ dataDir: "memory://", loadDataDir: dump });
    await expect(opening).rejects.toBeInstanceOf(DatabaseSetupError);
    await expect(opening).rejects.toThrow(/standard_conforming_strings is off/);
  });
});

describe.runIf(onServer)("opening a server database", () => {
  let t: TestApp;
  let url: string;
  let database: string;
  let before: Awaited<ReturnType<typeof storedLayout>>;
  const layout = testVectorLayout();

  const allowConnections = (allow: boolean) =>
    adminQuery(serverUrl, `ALTER DATABASE ${database} WITH ALLOW_CONNECTIONS ${allow}`);

  beforeAll(async () => {
    // A store holding embeddings (and, with pgvector, its space's HNSW index).
    t = await createTestApp();
    url = t.testDb.url as string;
    database = new URL(url).pathname.slice(1);
    const ws = await t.workspace("layout");
    await t.publishExample(ws.headers);
    await t.writeRecords(ws.headers, [
      { collection: "customer_events", entity: "c-1", type: "note", text: "alpha bravo" },
      { collection: "customer_events", entity: "c-1", type: "note", text: "charlie delta" },
    ]);
    await enrichAll(t.db, ws.id);
    before = await storedLayout(t.db);
    expect(before?.embeddings).toBeGreaterThan(0);
  });
  afterAll(async () => {
    await allowConnections(true);
    await t.close();
  });

  it("stops when the capability checks cannot be answered, in either layout, and changes nothing", async () => {
    // The server refuses new sessions while the store's own connections go on (a restart, a
    // failover, max_connections reached): before, the check read that as "no pgvector" and "no
    // Citus", and the next statement that got through converted the column and dropped its indexes.
    await allowConnections(false);
    try {
      for (const vectorLayout of ["auto", "exact"] as VectorLayout[]) {
        await expect(openPostgres({ connectionString: url, vectorLayout })).rejects.toThrow(
          /not currently accepting connections/,
        );
      }
    } finally {
      await allowConnections(true);
    }
    expect(await storedLayout(t.db)).toEqual(before);
    // Reopened once the server answers: the same layout, nothing to convert.
    const db = await openPostgres({ connectionString: url, vectorLayout: layout });
    try {
      expect((await prepareDatabase(db)).embeddings).toBeUndefined();
      expect(await storedLayout(db)).toEqual(before);
    } finally {
      await db.close();
    }
  });

  it("stops on standard_conforming_strings off (the connection's options here)", async () => {
    const off = new URL(url);
    off.searchParams.set("options", "-c standard_conforming_strings=off");
    const opening = openPostgres({ connectionString: off.toString(), vectorLayout: layout });
    await expect(opening).rejects.toBeInstanceOf(DatabaseSetupError);
    await expect(opening).rejects.toThrow(/standard_conforming_strings is off/);
  });

  it("a start in the other layout refuses a store holding embeddings, naming the step, and changes nothing", async () => {
    const offers = (
      await adminQuery(serverUrl, "SELECT 1 FROM pg_available_extensions WHERE name = 'vector'")
    ).length;
    if (!offers) return;
    const other: VectorLayout = layout === "exact" ? "auto" : "exact";
    const db = await openPostgres({ connectionString: url, vectorLayout: other });
    try {
      const starting = prepareDatabase(db);
      await expect(starting).rejects.toBeInstanceOf(DatabaseSetupError);
      await expect(starting).rejects.toThrow(`engram migrate --vector-layout ${other}`);
      expect(await storedLayout(db)).toEqual(before);
    } finally {
      await db.close();
    }
  });
});

// A database of its own with pgvector available but not created in it, and a user who may not
// create it (pgvector is trusted: the owner, or a user with CREATE on the database, may).
describe.runIf(onServer && !onCitus)("a server user who may not create pgvector", () => {
  const suffix = randomBytes(4).toString("hex");
  const database = `engram_nocreate_${suffix}`;
  const role = `engram_nocreate_${suffix}`;
  let userUrl: string;
  let offers = false;

  beforeAll(async () => {
    offers =
      (await adminQuery(serverUrl, "SELECT 1 FROM pg_available_extensions WHERE name = 'vector'")).length > 0;
    await adminQuery(serverUrl, `CREATE DATABASE ${database}`);
    await adminQuery(serverUrl, `CREATE ROLE ${role} LOGIN`);
    // Migrated by its owner in the exact layout: real[] columns, no extension.
    const owner = await openPostgres({
      connectionString: databaseUrlFor(serverUrl, database),
      vectorLayout: "exact",
    });
    try {
      await prepareDatabase(owner);
    } finally {
      await owner.close();
    }
    const user = new URL(databaseUrlFor(serverUrl, database));
    user.username = role;
    userUrl = user.toString();
  });
  afterAll(async () => {
    await withoutSessions(serverUrl, database, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await adminQuery(serverUrl, `DROP ROLE IF EXISTS ${role}`);
  });

  it("stops the start with what to do, instead of serving the exact layout silently", async (ctx) => {
    if (!offers) ctx.skip();
    const opening = openPostgres({ connectionString: userUrl });
    await expect(opening).rejects.toBeInstanceOf(DatabaseSetupError);
    await expect(opening).rejects.toThrow(/pgvector is available on this server but could not be created/);
    await expect(opening).rejects.toThrow(/as a superuser .* or set VECTOR_LAYOUT=exact/);
    // Nothing was created or converted: no extension, the column still real[].
    const db = await openPostgres({
      connectionString: databaseUrlFor(serverUrl, database),
      vectorLayout: "exact",
    });
    try {
      const { rows } = await db.query("SELECT extname FROM pg_extension WHERE extname = 'vector'");
      expect(rows).toEqual([]);
      expect((await storedLayout(db))?.type).toBe("real[]");
    } finally {
      await db.close();
    }
  });

  it("opens in the exact layout when VECTOR_LAYOUT=exact says so", async () => {
    const db = await openPostgres({ connectionString: userUrl, vectorLayout: "exact" });
    try {
      expect(db.hasVector).toBe(false);
    } finally {
      await db.close();
    }
  });
});
