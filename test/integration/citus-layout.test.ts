// The schema on Citus (src/platform/db/citus.ts): laid out at migrate time, each table where
// CITUS_PLACEMENT puts it, the per-workspace ones in one colocation group, so that a workspace's
// rows of every table live on one node and statements joining them route there.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CITUS_PLACEMENT } from "../../src/platform/db/citus.js";
import { migrate, openPostgres, storageLayout } from "../../src/platform/db/index.js";
import { adminQuery, withoutSessions } from "../support/admin.js";
import { createTestDb, onCitus, type TestDb } from "../support/db.js";
import { databaseUrlFor } from "../support/urls.js";

const placed = (placement: string) =>
  Object.entries(CITUS_PLACEMENT)
    .filter(([, where]) => where === placement)
    .map(([table]) => table)
    .sort();

describe.runIf(onCitus)("the schema on Citus", () => {
  let testDb: TestDb;
  beforeAll(async () => {
    testDb = await createTestDb();
  });
  afterAll(() => testDb.close());

  it("distributes per-workspace tables by workspace_id in one colocation group", async () => {
    const { rows } = await testDb.db.query<{ table: string; column: string; colocation: number }>(
      `SELECT logicalrelid::text AS table, column_to_column_name(logicalrelid, partkey) AS column,
         colocationid AS colocation
       FROM pg_dist_partition WHERE partmethod = 'h' ORDER BY 1`,
    );
    expect(rows.map((row) => row.table)).toEqual(placed("distributed"));
    expect(new Set(rows.map((row) => row.column))).toEqual(new Set(["workspace_id"]));
    expect(new Set(rows.map((row) => row.colocation)).size).toBe(1);
  });

  it("replicates workspaces and vector_indexes to every node, and keeps the queue on the coordinator", async () => {
    const { rows } = await testDb.db.query<{ table: string }>(
      "SELECT logicalrelid::text AS table FROM pg_dist_partition WHERE partmethod = 'n' ORDER BY 1",
    );
    expect(rows.map((row) => row.table)).toEqual(placed("reference"));
    for (const table of placed("coordinator")) {
      const { rows: known } = await testDb.db.query(
        "SELECT 1 FROM pg_dist_partition WHERE logicalrelid = to_regclass($1)",
        [table],
      );
      expect(known, table).toEqual([]);
    }
    // A coordinator table holds no foreign key to a reference table's rows (they are in its shard).
    const { rows: keys } = await testDb.db.query(
      "SELECT conname FROM pg_constraint WHERE conrelid = 'jobs'::regclass AND contype = 'f'",
    );
    expect(keys).toEqual([]);
  });

  it("sets the HNSW scan settings on the database, where the shards' sessions read them", async () => {
    const { rows } = await testDb.db.query<{ settings: string[] }>(
      `SELECT setconfig AS settings FROM pg_db_role_setting
       WHERE setdatabase = (SELECT oid FROM pg_database WHERE datname = current_database()) AND setrole = 0`,
    );
    expect(rows[0]?.settings).toEqual(
      expect.arrayContaining(["hnsw.iterative_scan=relaxed_order", "hnsw.ef_search=200"]),
    );
  });

  it("reports the citus layout", () => {
    expect(storageLayout(testDb.db)).toBe(testDb.db.hasVector ? "citus/hnsw" : "citus/exact");
  });

  it("refuses a migration creating a table with no placement, applying nothing", async () => {
    const unplaced = [
      { id: 9201, name: "9201_index", sql: "CREATE INDEX placement_probe_index ON schema_migrations (name)" },
      { id: 9202, name: "9202_table", sql: "CREATE TABLE placement_probe (workspace_id uuid)" },
    ];
    await expect(migrate(testDb.db, unplaced)).rejects.toThrow(
      /table placement_probe has no placement on Citus: add it to CITUS_PLACEMENT/,
    );
    const { rows } = await testDb.db.query(
      "SELECT to_regclass('placement_probe') AS t, to_regclass('placement_probe_index') AS i",
    );
    expect(rows[0]).toEqual({ t: null, i: null });
  });

  it("refuses a database first migrated without Citus, leaving it as it was", async () => {
    const serverUrl = process.env.DATABASE_URL as string;
    const name = `engram_plain_${randomBytes(4).toString("hex")}`;
    await adminQuery(serverUrl, `CREATE DATABASE ${name}`);
    const db = await openPostgres({ connectionString: databaseUrlFor(serverUrl, name) });
    try {
      expect((await migrate(db)).length).toBeGreaterThan(0);
      await db.exec("CREATE EXTENSION citus");
      await expect(migrate(db)).rejects.toThrow(
        /migrated without Citus: Engram does not convert a database in place/,
      );
      const { rows } = await db.query("SELECT logicalrelid FROM pg_dist_partition");
      expect(rows).toEqual([]);
    } finally {
      await db.close();
      await withoutSessions(serverUrl, name, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    }
  });
});
