import { describe, expect, it } from "vitest";
import { buildApp } from "../../src/http/app.js";
import { openPostgres } from "../../src/platform/db/index.js";
import { createTestApp, testConfig } from "../support/app.js";
import { createTestDb } from "../support/db.js";

describe("GET /health", () => {
  it("answers ok and db when the database answers", async () => {
    const t = await createTestApp();
    try {
      const res = await t.app.inject({ url: "/health" });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ ok: true, db: true });
    } finally {
      await t.close();
    }
  });

  it("counts a statement just completed on PGlite as an answer, so the probe never queues behind work", async () => {
    const testDb = await createTestDb();
    try {
      await testDb.db.query("SELECT 1");
      // PGlite serializes statements on one connection; a server pool's probe never waits.
      expect(testDb.db.answeredWithin(1_000)).toBe(testDb.db.kind === "pglite");
      expect(testDb.db.answeredWithin(-1)).toBe(false);
    } finally {
      await testDb.close();
    }
    expect(testDb.db.answeredWithin(1_000)).toBe(false);
  });

  it("answers 503 when the embedded or server database is gone", async () => {
    const testDb = await createTestDb();
    const app = await buildApp({ config: testConfig(), db: testDb.db, version: "test" });
    await testDb.close();
    try {
      const res = await app.inject({ url: "/health" });
      expect(res.statusCode).toBe(503);
      expect(res.headers["content-type"]).toContain("application/problem+json");
      expect(res.json()).toMatchObject({ ok: false, db: false, status: 503, code: "database_unavailable" });
    } finally {
      await app.close();
    }
  });

  it("answers 503 when the PostgreSQL server is unreachable", async () => {
    // Port 1 on loopback refuses connections at once.
    const db = await openPostgres({ connectionString: "postgres://nobody@127.0.0.1:1/none" });
    const app = await buildApp({ config: testConfig(), db, version: "test" });
    try {
      const res = await app.inject({ url: "/health" });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({ ok: false, db: false });
      // Other routes report the outage as 503 database_unavailable, not as a bad key.
      const other = await app.inject({
        url: "/anything",
        headers: { authorization: "Bearer egk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" },
      });
      expect(other.statusCode).toBe(503);
      expect(other.json().code).toBe("database_unavailable");
    } finally {
      await app.close();
      await db.close();
    }
  });
});
