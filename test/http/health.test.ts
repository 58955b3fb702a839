import { type AddressInfo, connect, createServer, type Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { buildApp } from "../../src/http/index.js";
import { openPostgres } from "../../src/platform/db/index.js";
import { createTestApp, testConfig } from "../support/app.js";
import { createTestDb, onServer } from "../support/db.js";
import { testVectorLayout } from "../support/urls.js";

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

  // Opening needs the server (it checks what the server offers: src/platform/db/postgres.ts), so
  // the database is reached through a port of the test's own, closed once it has opened.
  it.runIf(onServer)("answers 503 when the PostgreSQL server is unreachable", async () => {
    const testDb = await createTestDb();
    const target = new URL(testDb.url as string);
    const sockets = new Set<Socket>();
    const proxy = createServer((client) => {
      const upstream = connect(Number(target.port || 5432), target.hostname);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on("error", () => undefined);
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    const via = new URL(target);
    via.port = String((proxy.address() as AddressInfo).port);
    const db = await openPostgres({ connectionString: via.toString(), vectorLayout: testVectorLayout() });
    // Now it refuses connections at once, and the ones open are cut.
    await new Promise((resolve) => {
      proxy.close(resolve);
      for (const socket of sockets) socket.destroy();
    });
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
      await testDb.close();
    }
  });
});
