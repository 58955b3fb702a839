import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/http/index.js";
import { openPostgres } from "../../src/platform/db/index.js";
import { createTestApp, type TestApp, testConfig } from "../support/app.js";
import { onServer } from "../support/db.js";

describe("per-key rate limiting", () => {
  let t: TestApp;
  let a: { authorization: string };
  let b: { authorization: string };
  const get = (headers: Record<string, string>, url = "/catalog") => t.app.inject({ url, headers });

  beforeAll(async () => {
    t = await createTestApp({ env: { RATE_LIMIT_MAX: "3", RATE_LIMIT_WINDOW_MS: "60000" } });
    a = (await t.workspace("limited-a")).headers;
    b = (await t.workspace("limited-b")).headers;
  });
  afterAll(() => t.close());

  it("answers 429 rate_limited with Retry-After past the key's budget; other keys and /health go on", async () => {
    for (let i = 0; i < 3; i++) expect((await get(a)).statusCode).not.toBe(429);
    const refused = await get(a);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect(refused.json().code).toBe("rate_limited");
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
    expect((await get(b)).statusCode).not.toBe(429);
    for (let i = 0; i < 5; i++) expect((await t.app.inject({ url: "/health" })).statusCode).toBe(200);
  });

  it("never counts a refused key against anyone", async () => {
    for (let i = 0; i < 5; i++)
      expect((await get({ authorization: "Bearer egk_nope" })).statusCode).toBe(401);
  });
});

describe.runIf(onServer)("a pool with every connection busy", () => {
  let t: TestApp;
  let release: () => void = () => undefined;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    release();
    await t.close();
  });

  it("answers 503 database_busy with Retry-After, not database_unavailable, and recovers", async () => {
    const ws = await t.workspace("busy");
    const db = await openPostgres({
      connectionString: t.testDb.url as string,
      poolSize: 1,
      connectTimeoutMs: 300,
    });
    const app = await buildApp({ config: testConfig(), db, version: "test" });
    try {
      const held = db.transaction(
        () =>
          new Promise<void>((resolve) => {
            release = resolve;
          }),
      );
      const busy = await app.inject({ url: "/catalog", headers: ws.headers });
      expect(busy.statusCode).toBe(503);
      expect(busy.json().code).toBe("database_busy");
      expect(busy.headers["retry-after"]).toBe("1");
      release();
      await held;
      const again = await app.inject({ url: "/timeline", headers: ws.headers });
      expect(again.statusCode, again.body).toBe(200);
    } finally {
      release();
      await app.close();
      await db.close();
    }
  });
});
