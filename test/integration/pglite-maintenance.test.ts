// PGlite has no autovacuum: the adapter re-analyzes as rows are written and vacuums once enough
// rows were written and writes pause (src/platform/db/pglite-maintenance.ts). Timers are faked;
// the vacuum itself runs on a real embedded database.
import { readFile } from "node:fs/promises";
import { afterEach, beforeEach, describe, expect, inject, it, vi } from "vitest";
import { type Db, openPglite } from "../../src/platform/db/index.js";
import { onServer } from "../support/db.js";

const OPTIONS = { vacuumAfterRows: 10, quietMs: 100, maxDelayMs: 1000 };

describe.skipIf(onServer)("PGlite maintenance", () => {
  let db: Db;
  // How many times a table was vacuumed or analyzed (VACUUM ANALYZE counts as both).
  const counted = (column: "vacuum_count" | "analyze_count") => async (table: string) =>
    (
      await db.query<{ n: number }>(
        `SELECT ${column}::int AS n FROM pg_stat_user_tables WHERE relname = $1`,
        [table],
      )
    ).rows[0]?.n;
  const vacuums = (table = "maintained") => counted("vacuum_count")(table);
  const analyzes = counted("analyze_count");
  const advance = async (ms: number) => {
    await vi.advanceTimersByTimeAsync(ms);
    // The vacuum is queued on PGlite's one connection: a statement after it waits for it.
    await db.query("SELECT 1");
  };

  beforeEach(async () => {
    const dump = await readFile(inject("pgliteDump"));
    db = await openPglite({ dataDir: "memory://", loadDataDir: new Blob([dump]), maintenance: OPTIONS });
    await db.exec(
      `CREATE TABLE maintained (id int PRIMARY KEY, v int); INSERT INTO maintained SELECT g, 0 FROM generate_series(1, 50) g;
       CREATE TABLE marks (id int PRIMARY KEY); INSERT INTO marks SELECT g FROM generate_series(1, 50) g`,
    );
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
  });

  afterEach(async () => {
    vi.useRealTimers();
    await db.close();
  });

  it("does not vacuum before enough rows were written", async () => {
    db.noteWrites(OPTIONS.vacuumAfterRows - 1);
    await advance(OPTIONS.maxDelayMs * 2);
    expect(await vacuums()).toBe(0);
  });

  it("vacuums once enough rows were written and writes paused", async () => {
    db.noteWrites(OPTIONS.vacuumAfterRows);
    await advance(OPTIONS.quietMs - 10);
    db.noteWrites(1);
    await advance(OPTIONS.quietMs - 10);
    expect(await vacuums()).toBe(0);
    await advance(20);
    expect(await vacuums()).toBe(1);
    // Nothing written since: no second vacuum.
    await advance(OPTIONS.maxDelayMs * 2);
    expect(await vacuums()).toBe(1);
  });

  it("under writes that never pause, vacuums at most maxDelayMs late", async () => {
    db.noteWrites(OPTIONS.vacuumAfterRows);
    for (let waited = 0; waited < OPTIONS.maxDelayMs - OPTIONS.quietMs; waited += OPTIONS.quietMs / 2) {
      await advance(OPTIONS.quietMs / 2);
      db.noteWrites(1);
    }
    expect(await vacuums()).toBe(0);
    await advance(OPTIONS.quietMs);
    expect(await vacuums()).toBe(1);
  });

  it("writes to one named table vacuum that table alone, on their own schedule", async () => {
    db.noteWrites(OPTIONS.vacuumAfterRows, "marks");
    await advance(OPTIONS.quietMs);
    expect(await vacuums("marks")).toBe(1);
    expect(await vacuums("maintained")).toBe(0);
    // The whole database's vacuum is not held off by that table's writes that never pause.
    db.noteWrites(OPTIONS.vacuumAfterRows);
    for (let waited = 0; waited < OPTIONS.quietMs; waited += OPTIONS.quietMs / 4) {
      await advance(OPTIONS.quietMs / 4);
      db.noteWrites(1, "marks");
    }
    await advance(10);
    expect(await vacuums("maintained")).toBe(1);
  });

  it("refuses a table name that is not a plain identifier", () => {
    expect(() => db.noteWrites(1, "marks; DROP TABLE maintained")).toThrow(/not a table name/);
  });

  it("a named table is analyzed with its vacuum, not on every few dozen rows", async () => {
    db.noteWrites(60, "marks");
    await db.query("SELECT 1");
    expect(await analyzes("marks")).toBe(0);
    // The same rows written database-wide are analyzed at once (which covers every table).
    db.noteWrites(60);
    await db.query("SELECT 1");
    expect(await analyzes("maintained")).toBe(1);
  });

  it("database-wide ANALYZE takes at most a tenth of the time: one due sooner waits, then runs unprompted", async () => {
    // No vacuum in this test: its VACUUM ANALYZE would be counted too.
    await db.close();
    db = await openPglite({
      dataDir: "memory://",
      loadDataDir: new Blob([await readFile(inject("pgliteDump"))]),
      maintenance: { ...OPTIONS, vacuumAfterRows: 1e9 },
    });
    await db.exec("CREATE TABLE maintained (id int PRIMARY KEY); INSERT INTO maintained VALUES (1)");
    db.noteWrites(60);
    // That ANALYZE holds the connection for 100 ms (of the faked clock), then ends.
    vi.advanceTimersByTime(100);
    await db.query("SELECT 1");
    expect(await analyzes("maintained")).toBe(1);
    // Due again at once, but not within 900 ms of its end.
    db.noteWrites(1000);
    await db.query("SELECT 1");
    expect(await analyzes("maintained")).toBe(1);
    await advance(850);
    expect(await analyzes("maintained")).toBe(1);
    // Then it runs without another write.
    await advance(60);
    expect(await analyzes("maintained")).toBe(2);
  });
});
