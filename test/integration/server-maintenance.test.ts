// A server that will not vacuum Engram's tables is reported at startup (src/platform/db/
// server-maintenance.ts); PGlite has no autovacuum and Engram maintains it itself.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { maintenanceWarnings } from "../../src/platform/db/index.js";
import { cliEnv, listening, startCli } from "../support/cli.js";
import { createTestDb, onServer, type TestDb } from "../support/db.js";

describe("server maintenance warnings", () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await createTestDb();
  });
  afterAll(() => t.close());

  it.skipIf(onServer)("none on PGlite", async () => {
    expect(await maintenanceWarnings(t.db)).toEqual([]);
  });

  it.runIf(onServer)("say when the server's autovacuum is off", async () => {
    const { rows } = await t.db.query<{ on: boolean }>(
      "SELECT current_setting('autovacuum') = 'on' AND current_setting('track_counts') = 'on' AS on",
    );
    const warnings = await maintenanceWarnings(t.db);
    if (rows[0]?.on) expect(warnings).toEqual([]);
    else expect(warnings).toEqual([expect.stringMatching(/^autovacuum is off on this server \(autovacuum=/)]);
  });

  it.runIf(onServer)("name the tables whose autovacuum is disabled", async () => {
    const before = await maintenanceWarnings(t.db);
    // One statement per query: Citus refuses two DDL statements in one.
    await t.db.exec("ALTER TABLE records SET (autovacuum_enabled = off)");
    await t.db.exec("ALTER TABLE heads SET (autovacuum_enabled = false)");
    try {
      expect(await maintenanceWarnings(t.db)).toEqual([
        ...before,
        expect.stringMatching(
          /^autovacuum is disabled on table heads, records: vacuum and analyze will not run/,
        ),
      ]);
      // Said once when the server process starts, on stderr.
      const serve = startCli(
        ["serve", "--port", "0"],
        cliEnv({ DATABASE_URL: t.url as string, LOG_LEVEL: "info" }),
      );
      try {
        const { stderr } = await listening(serve);
        expect(stderr).toContain("autovacuum is disabled on table heads, records");
      } finally {
        serve.kill("SIGTERM");
      }
    } finally {
      await t.db.exec("ALTER TABLE records RESET (autovacuum_enabled)");
      await t.db.exec("ALTER TABLE heads RESET (autovacuum_enabled)");
    }
    expect(await maintenanceWarnings(t.db)).toEqual(before);
  });
});
