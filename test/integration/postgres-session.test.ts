// Settings every pooled server connection opens with (src/platform/db/postgres.ts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPostgres } from "../../src/platform/db/index.js";
import { createTestDb, onServer, type TestDb } from "../support/db.js";

describe.runIf(onServer)("server sessions", () => {
  let testDb: TestDb;
  beforeAll(async () => {
    testDb = await createTestDb();
  });
  afterAll(() => testDb.close());

  async function jitOf(connectionString: string): Promise<string> {
    const db = await openPostgres({ connectionString });
    try {
      // Every connection of the pool, not only the first: three at once, each held a moment.
      const settings = await Promise.all(
        [1, 2, 3].map(() =>
          db.query<{ jit: string; pid: number }>(
            "SELECT current_setting('jit') AS jit, pg_backend_pid() AS pid, pg_sleep(0.05)",
          ),
        ),
      );
      expect(new Set(settings.map((r) => r.rows[0]?.pid)).size).toBe(3);
      const values = new Set(settings.map((r) => r.rows[0]?.jit));
      expect(values.size).toBe(1);
      return [...values][0] as string;
    } finally {
      await db.close();
    }
  }

  it("run without JIT compilation", async () => {
    expect(await jitOf(testDb.url as string)).toBe("off");
  });

  it("take the connection string's own options instead", async () => {
    const url = new URL(testDb.url as string);
    url.searchParams.set("options", "-c jit=on");
    expect(await jitOf(url.toString())).toBe("on");
  });
});
