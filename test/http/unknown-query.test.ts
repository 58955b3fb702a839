// Query parameters a route does not define are refused (src/http/closed-query.ts): 422
// request_schema naming each, after authentication, and nothing runs. (Every published route is
// covered by test/http/openapi-sweep.test.ts; these are the cases that sweep does not reach.)
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/http/index.js";
import { createTestApp, type TestApp, testConfig } from "../support/app.js";
import { createTestDb } from "../support/db.js";

const PROBLEM = "application/problem+json";

describe("unknown query parameters", () => {
  let t: TestApp;
  let headers: { authorization: string };
  beforeAll(async () => {
    t = await createTestApp({
      // Routes written without a closed query schema: one open, one with no schema at all.
      routes: [
        (app) => {
          app.get(
            "/probe/open",
            {
              schema: {
                querystring: { type: "object", properties: { limit: { type: "integer", minimum: 1 } } },
              },
            },
            async (request) => ({ query: request.query }),
          );
          app.get("/probe/bare", async () => ({ ok: true }));
        },
      ],
    });
    ({ headers } = await t.workspace("unknown-query"));
    await t.publishExample(headers);
  });
  afterAll(() => t.close());

  const refusedPaths = (res: { statusCode: number; headers: Record<string, unknown>; json(): any }) => {
    expect(res.statusCode).toBe(422);
    expect(String(res.headers["content-type"])).toContain(PROBLEM);
    expect(res.json().code).toBe("request_schema");
    return res
      .json()
      .errors.map((e: { path: string }) => e.path)
      .sort();
  };

  it("refuses POST /erase?dryrun=true (misspelt dry_run) and erases nothing", async () => {
    const ids = await t.writeRecords(headers, [
      {
        collection: "customer_events",
        entity: "erase-me",
        type: "ticket",
        text: "card declined",
        content: {},
      },
      {
        collection: "customer_facts",
        entity: "erase-me",
        type: "fact",
        key: "plan",
        text: "pro",
        content: {},
      },
    ]);
    const res = await t.app.inject({
      method: "POST",
      url: "/erase?dryrun=true",
      headers,
      payload: { entity: "erase-me" },
    });
    expect(refusedPaths(res)).toEqual(["querystring.dryrun"]);
    expect(res.json().errors).toEqual([{ path: "querystring.dryrun", message: "is not allowed" }]);
    for (const id of ids) {
      expect((await t.app.inject({ url: `/records/${id}`, headers })).statusCode).toBe(200);
    }
    const timeline = await t.app.inject({ url: "/timeline?entity=erase-me", headers });
    expect(timeline.json().records).toHaveLength(2);
    const audits = await t.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM records WHERE collection = '_system'",
    );
    expect(audits.rows[0]?.n).toBe(0);
  });

  it("names every unknown parameter, and keeps the ones a route defines", async () => {
    const res = await t.app.inject({ url: "/timeline?entity=c1&limit=5&bogus=1&Limit=2", headers });
    expect(refusedPaths(res)).toEqual(["querystring.Limit", "querystring.bogus"]);
    const catalog = await t.app.inject({ url: "/catalog?verbose=true", headers });
    expect(refusedPaths(catalog)).toEqual(["querystring.verbose"]);
  });

  it("asks for the key before judging the query string", async () => {
    for (const url of ["/erase?dry_run=true", "/records?x=1"]) {
      const res = await t.app.inject({ method: "POST", url, payload: { entity: "c1" } });
      expect(res.statusCode).toBe(401);
    }
    const res = await t.app.inject({
      url: "/collections?x=1",
      headers: { authorization: "Bearer egk_nope" },
    });
    expect(res.statusCode).toBe(401);
  });

  it("refuses them on the public routes and on HEAD", async () => {
    for (const url of ["/health?probe=1", "/openapi.json?v=2"]) {
      const res = await t.app.inject({ url });
      expect(refusedPaths(res)).toHaveLength(1);
    }
    const head = await t.app.inject({ method: "HEAD", url: "/health?probe=1" });
    expect(head.statusCode).toBe(422);
    expect((await t.app.inject({ method: "HEAD", url: "/health" })).statusCode).toBe(200);
  });

  it("refuses them on POST /mcp, whose transport never uses the query string", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: "/mcp?session=1",
      headers: { ...headers, accept: "application/json, text/event-stream" },
      payload: { jsonrpc: "2.0", id: 1, method: "ping" },
    });
    expect(refusedPaths(res)).toEqual(["querystring.session"]);
  });

  it("closes the query schema of a route that leaves it open, and gives one to a route without", async () => {
    const open = await t.app.inject({ url: "/probe/open?limit=2", headers });
    expect(open.statusCode, open.body).toBe(200);
    expect(open.json()).toEqual({ query: { limit: 2 } });
    expect(refusedPaths(await t.app.inject({ url: "/probe/open?limit=2&offset=1", headers }))).toEqual([
      "querystring.offset",
    ]);
    expect((await t.app.inject({ url: "/probe/bare", headers })).statusCode).toBe(200);
    expect(refusedPaths(await t.app.inject({ url: "/probe/bare?x", headers }))).toEqual(["querystring.x"]);
  });

  it("will not start with a query schema it cannot close", async () => {
    const testDb = await createTestDb();
    try {
      await expect(
        buildApp({
          config: testConfig(),
          db: testDb.db,
          version: "test",
          routes: [
            (app) => {
              app.get("/probe/any", { schema: { querystring: { type: "object" } } }, async () => ({}));
            },
          ],
        }),
      ).rejects.toThrow(/querystring schema must list its parameters/);
    } finally {
      await testDb.close();
    }
  });

  it("leaves the reference page's files alone", async () => {
    for (const url of ["/docs?x=1", "/docs/json?x=1"]) {
      expect((await t.app.inject({ url })).statusCode, url).toBe(200);
    }
  });

  it("leaves artifact parameters to the artifact, which refuses other names itself", async () => {
    const res = await t.app.inject({
      url: "/artifacts/support_brief?customer=c1&question=card&bogus=1",
      headers,
    });
    expect(refusedPaths(res)).toEqual(["bogus"]);
    const proto = await t.app.inject({
      url: "/artifacts/support_brief?customer=c1&question=card&__proto__=1",
      headers,
    });
    expect(refusedPaths(proto)).toEqual(["__proto__"]);
    const known = await t.app.inject({ url: "/artifacts/support_brief?customer=c1&question=card", headers });
    expect(known.json().code).not.toBe("request_schema");
  });
});
