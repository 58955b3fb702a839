import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadMigrations, migrate } from "../../src/platform/db/index.js";
import { createTestDb, onServer, type TestDb } from "../support/db.js";

describe("migrations", () => {
  let testDb: TestDb;
  beforeAll(async () => {
    testDb = await createTestDb();
  });
  afterAll(() => testDb.close());

  it("are numbered and all recorded after the run's migration", async () => {
    const migrations = await loadMigrations();
    expect(migrations.length).toBeGreaterThan(0);
    const { rows } = await testDb.db.query<{ id: number }>("SELECT id FROM schema_migrations ORDER BY id");
    expect(rows.map((row) => row.id)).toEqual(migrations.map((m) => m.id));
  });

  it("are idempotent: a second run applies nothing and keeps the data", async () => {
    await testDb.db.query("INSERT INTO workspaces (name) VALUES ('keep')");
    expect(await migrate(testDb.db)).toEqual([]);
    expect(await migrate(testDb.db)).toEqual([]);
    const { rows } = await testDb.db.query("SELECT name FROM workspaces WHERE name = 'keep'");
    expect(rows).toHaveLength(1);
  });

  it("roll back entirely when one fails", async () => {
    const bad = [
      { id: 9001, name: "9001_ok", sql: "CREATE INDEX mig_probe ON schema_migrations (name)" },
      { id: 9002, name: "9002_broken", sql: "CREATE TABLE broken (" },
    ];
    await expect(migrate(testDb.db, bad)).rejects.toThrow();
    const { rows } = await testDb.db.query("SELECT to_regclass('mig_probe') AS t");
    expect(rows[0]).toEqual({ t: null });
    const recorded = await testDb.db.query("SELECT id FROM schema_migrations WHERE id > 9000");
    expect(recorded.rows).toEqual([]);
  });

  it.runIf(onServer)("let concurrent starts take turns on one server", async () => {
    const extra = [
      {
        id: 9100,
        name: "9100_probe",
        sql: "CREATE INDEX concurrent_probe ON schema_migrations (applied_at)",
      },
    ];
    const results = await Promise.all([migrate(testDb.db, extra), migrate(testDb.db, extra)]);
    expect(results.flat()).toEqual(["9100_probe"]);
  });
});
