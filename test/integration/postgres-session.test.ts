// Settings every pooled server connection opens with (src/platform/db/postgres.ts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPostgres } from "../../src/platform/db/index.js";
import { createTestDb, onServer, type TestDb } from "../support/db.js";

const warnings: string[] = [];
const onWarning = (warning: Error) => warnings.push(warning.message);
process.on("warning", onWarning);
// The worker process runs other files after this one (vitest.config.ts: isolate false).
afterAll(() => {
  process.off("warning", onWarning);
});

describe.runIf(onServer)("server sessions", () => {
  let testDb: TestDb;
  beforeAll(async () => {
    testDb = await createTestDb();
  });
  afterAll(() => testDb.close());

  /** The settings of every connection of a fresh pool: three at once, each held a moment. */
  async function settingsOf(connectionString: string): Promise<string> {
    const db = await openPostgres({ connectionString });
    try {
      const settings = await Promise.all(
        [1, 2, 3].map(() =>
          db.query<{ settings: string; pid: number }>(
            `SELECT concat_ws(' ', current_setting('jit'), current_setting('hnsw.iterative_scan', true),
               current_setting('hnsw.ef_search', true)) AS settings, pg_backend_pid() AS pid, pg_sleep(0.05)`,
          ),
        ),
      );
      expect(new Set(settings.map((r) => r.rows[0]?.pid)).size).toBe(3);
      const values = new Set(settings.map((r) => r.rows[0]?.settings));
      expect(values.size).toBe(1);
      return [...values][0] as string;
    } finally {
      await db.close();
    }
  }

  it("run without JIT compilation and with the HNSW scan settings, from their first query", async () => {
    expect(await settingsOf(testDb.url as string)).toBe("off relaxed_order 200");
  });

  it("take the connection string's own options where they overlap, keeping the others", async () => {
    const url = new URL(testDb.url as string);
    url.searchParams.set("options", "-c jit=on -c hnsw.ef_search=40");
    expect(await settingsOf(url.toString())).toBe("on relaxed_order 40");
  });

  // Last: pg warns once per process, so this looks at every pool the tests above opened too.
  it("never send a query to a client that is still executing one (pg 9 makes it an error)", async () => {
    const db = await openPostgres({ connectionString: testDb.url as string });
    try {
      // Fresh connections taken by concurrent queries, as hybrid search's parallel proposals do.
      await Promise.all(Array.from({ length: 8 }, () => db.query("SELECT pg_sleep(0.02)")));
      await db.transaction(async (tx) => tx.query("SELECT 1"));
    } finally {
      await db.close();
    }
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.filter((w) => w.includes("already executing a query"))).toEqual([]);
  });
});
