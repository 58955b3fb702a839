// Access marks lock the records they mark (FOR KEY SHARE, migration 0017 dropped the foreign key):
// a record an erasure is deleting is skipped, never waited for, so a search's mark cannot hang
// behind an erasure (or deadlock with one). On PGlite one connection runs one statement at a
// time, so the race exists only on the server.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { markAccessed } from "../../src/records/index.js";
import { createTestApp, type TestApp } from "../support/app.js";

const marked = async (t: TestApp, workspaceId: string) =>
  (
    await t.db.query<{ id: string }>("SELECT record_id AS id FROM record_access WHERE workspace_id = $1", [
      workspaceId,
    ])
  ).rows.map((row) => row.id);

describe("access marks", () => {
  let t: TestApp;
  let ws: { id: string; headers: { authorization: string } };
  let ids: string[] = [];

  beforeAll(async () => {
    t = await createTestApp();
    ws = await t.workspace("access-marks");
    await t.publishExample(ws.headers);
    ids = await t.writeRecords(
      ws.headers,
      ["first", "second"].map((text) => ({
        collection: "customer_events",
        entity: "c1",
        type: "note",
        text,
      })),
    );
  });
  afterAll(() => t.close());

  it.skipIf(!process.env.DATABASE_URL)(
    "skip a record another transaction is deleting instead of waiting for it",
    async () => {
      const [deleting, kept] = ids as [string, string];
      const rollback = new Error("rollback");
      await expect(
        t.db.transaction(async (tx) => {
          await tx.query("DELETE FROM records WHERE workspace_id = $1 AND id = $2", [ws.id, deleting]);
          // From another connection, while the delete holds the row: waiting would never end here.
          const timeout = new Promise((_, reject) =>
            setTimeout(() => reject(new Error("mark waited")), 5_000),
          );
          await Promise.race([markAccessed(t.db, ws.id, [deleting, kept]), timeout]);
          throw rollback;
        }),
      ).rejects.toBe(rollback);
      expect(await marked(t, ws.id)).toEqual([kept]);
    },
  );

  it("marks only records that exist, and a record at most once a minute", async () => {
    await t.db.query("DELETE FROM record_access WHERE workspace_id = $1", [ws.id]);
    const missing = "00000000-0000-4000-8000-000000000000";
    await markAccessed(t.db, ws.id, [...ids, missing]);
    expect((await marked(t, ws.id)).sort()).toEqual([...ids].sort());
    const [recent, old] = ids as [string, string];
    await t.db.query(
      "UPDATE record_access SET last_accessed = now() - interval '30 seconds' WHERE record_id = $1",
      [recent],
    );
    await t.db.query(
      "UPDATE record_access SET last_accessed = now() - interval '2 minutes' WHERE record_id = $1",
      [old],
    );
    await markAccessed(t.db, ws.id, ids);
    const { rows } = await t.db.query<{ id: string; age: number }>(
      `SELECT record_id AS id, extract(epoch FROM now() - last_accessed)::float8 AS age
       FROM record_access WHERE workspace_id = $1`,
      [ws.id],
    );
    const age = new Map(rows.map((row) => [row.id, row.age]));
    expect(age.get(recent)).toBeGreaterThanOrEqual(29);
    expect(age.get(old)).toBeLessThan(5);
  });

  it("a mark's relaxed commit is its own: later statements commit durably", async () => {
    await t.db.query("DELETE FROM record_access WHERE workspace_id = $1", [ws.id]);
    await markAccessed(t.db, ws.id, ids);
    // PGlite has one connection, so this reads the setting where the mark just ran.
    // The session's setting is the server's own again (on, unless the server relaxes it for all).
    const { rows } = await t.db.query<{ s: string; server: string }>(
      "SELECT current_setting('synchronous_commit') AS s, reset_val AS server FROM pg_settings WHERE name = 'synchronous_commit'",
    );
    expect(rows[0]?.s).toBe(rows[0]?.server);
    expect((await marked(t, ws.id)).sort()).toEqual([...ids].sort());
  });
});
