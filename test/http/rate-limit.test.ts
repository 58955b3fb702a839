// Rate limits per key, counted before the body is read (src/http/rate-limit.ts): two keys of
// one workspace have their own budgets, and a limited key gets 429 rate_limited whatever it
// sends, with nothing parsed, validated or written.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertKey } from "../../src/workspaces/index.js";
import { createTestApp, type TestApp } from "../support/app.js";

const MAX = 20;

describe("rate limits per key", () => {
  let t: TestApp;
  let workspaceId: string;
  let writer: { authorization: string };
  let reader: { authorization: string };

  const records = async () =>
    (
      await t.db.query<{ n: number }>("SELECT count(*)::int AS n FROM records WHERE workspace_id = $1", [
        workspaceId,
      ])
    ).rows[0]?.n;

  beforeAll(async () => {
    t = await createTestApp({ env: { RATE_LIMIT_MAX: String(MAX), RATE_LIMIT_WINDOW_MS: "600000" } });
    const ws = await t.workspace("limited");
    workspaceId = ws.id;
    writer = ws.headers;
    const readOnly = await insertKey(
      t.db,
      { id: ws.id, name: "limited" },
      { name: "viewer", scope: "read_only" },
    );
    reader = { authorization: `Bearer ${readOnly.api_key}` };
    for (let i = 0; i < MAX; i++) {
      const res = await t.app.inject({ url: "/timeline?entity=nobody", headers: writer });
      expect(res.statusCode, res.body).toBe(200);
    }
  });
  afterAll(() => t.close());

  it("gives each key of a workspace its own budget", async () => {
    const limited = await t.app.inject({ url: "/timeline?entity=nobody", headers: writer });
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ code: "rate_limited" });
    expect(limited.json().detail).toContain("for this key");
    expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
    const other = await t.app.inject({ url: "/timeline?entity=nobody", headers: reader });
    expect(other.statusCode, other.body).toBe(200);
  });

  const json = { "content-type": "application/json" };
  it.each([
    ["invalid JSON", { method: "POST", url: "/records", headers: json, payload: '{"records": [' }],
    [
      "a 15 MB invalid body",
      {
        method: "POST",
        url: "/records",
        headers: json,
        payload: `{"records": "${"x".repeat(15 * 1024 * 1024)}`,
      },
    ],
    [
      "unknown query parameters",
      { method: "GET", url: "/timeline?entity=e&nope=1&dryrun=true", headers: {} },
    ],
    [
      "a text/plain body",
      { method: "POST", url: "/records", headers: { "content-type": "text/plain" }, payload: "hi" },
    ],
    ["malformed percent-encoding", { method: "GET", url: "/search?q=%FF", headers: {} }],
    ["a non-decimal integer", { method: "GET", url: "/timeline?entity=e&limit=1e1", headers: {} }],
  ] as const)("refuses the limited key's request with %s as 429, before reading it", async (_, request) => {
    const res = await t.app.inject({ ...request, headers: { ...writer, ...request.headers } });
    expect(res.statusCode, res.body).toBe(429);
    expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect(res.json().code).toBe("rate_limited");
  });

  it("refuses a valid write of the limited key and writes nothing", async () => {
    const before = await records();
    const res = await t.app.inject({
      method: "POST",
      url: "/records",
      headers: writer,
      payload: {
        records: [{ collection: "customer_events", entity: "e", type: "t", text: "x", content: {} }],
      },
    });
    expect(res.statusCode).toBe(429);
    expect(await records()).toBe(before);
  });

  it("never counts requests without a valid key, nor the public routes", async () => {
    for (let i = 0; i < MAX + 5; i++) {
      expect(
        (await t.app.inject({ url: "/timeline?entity=e", headers: { authorization: "Bearer egk_nope" } }))
          .statusCode,
      ).toBe(401);
      expect((await t.app.inject({ url: "/health" })).statusCode).toBe(200);
    }
  });
});
