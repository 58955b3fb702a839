// What the HTTP edges refuse before any route reads a request (docs/api.md "Request rules"): a
// body that is not JSON (415), an integer query parameter that is not plain decimal (422, one
// rule for every route, src/platform/schema.ts), a query string that is not validly
// percent-encoded (400); and the headers of the reference page at /docs.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryArguments, validateArguments } from "../../src/catalog/index.js";
import { createTestApp, headersFor, TEST_ADMIN_TOKEN, type TestApp } from "../support/app.js";

const NOT_PLAIN = ["1e1", "0x10", " 10", "10 ", "10.0", "+10", "1_0", "", "0b1", "Infinity"];

interface Parameter {
  in: string;
  name: string;
  schema: { type?: unknown; items?: { type?: unknown } };
}

describe("the HTTP edges", () => {
  let t: TestApp;
  let headers: { authorization: string };
  let workspaceId: string;
  const records = async () =>
    (
      await t.db.query<{ n: number }>("SELECT count(*)::int AS n FROM records WHERE workspace_id = $1", [
        workspaceId,
      ])
    ).rows[0]?.n;

  beforeAll(async () => {
    // The operator API too: its routes are swept with the operator token (headersFor).
    t = await createTestApp({ env: { ADMIN_TOKEN: TEST_ADMIN_TOKEN } });
    const ws = await t.workspace("edges");
    headers = ws.headers;
    workspaceId = ws.id;
    await t.publishExample(headers);
  });
  afterAll(() => t.close());

  describe("a body that is not JSON", () => {
    it.each(["text/plain", "text/plain; charset=utf-8", "application/x-www-form-urlencoded", "text/csv"])(
      "is 415 unsupported_media_type as %s, and nothing is written",
      async (type) => {
        const before = await records();
        const res = await t.app.inject({
          method: "POST",
          url: "/records",
          headers: { ...headers, "content-type": type },
          payload:
            '{"records":[{"collection":"customer_events","entity":"e","type":"t","text":"x","content":{}}]}',
        });
        expect(res.statusCode, res.body).toBe(415);
        expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
        expect(res.json().code).toBe("unsupported_media_type");
        expect(await records()).toBe(before);
      },
    );

    it("is 415 on a read route with a body too (POST /search)", async () => {
      const res = await t.app.inject({
        method: "POST",
        url: "/search",
        headers: { ...headers, "content-type": "text/plain" },
        payload: '{"mode":"recent"}',
      });
      expect(res.statusCode, res.body).toBe(415);
    });
  });

  describe("integer query parameters", () => {
    let integers: { method: string; url: string; name: string }[] = [];

    beforeAll(async () => {
      const doc = (await t.app.inject({ url: "/openapi.json" })).json();
      integers = Object.entries(
        doc.paths as Record<string, Record<string, { parameters?: Parameter[] }>>,
      ).flatMap(([path, methods]) =>
        Object.entries(methods).flatMap(([method, op]) =>
          (op.parameters ?? [])
            .filter((p) => p.in === "query")
            .filter((p) => [p.schema.type, p.schema.items?.type].flat().includes("integer"))
            .map((p) => ({
              method: method.toUpperCase(),
              url: path.replace(/\{[^}]+\}/g, "00000000-0000-4000-8000-000000000000"),
              name: p.name,
            })),
        ),
      );
    });

    it("exist on several routes (the sweep below is not empty)", () => {
      expect(integers.length).toBeGreaterThanOrEqual(10);
      expect(integers.map((p) => p.name)).toEqual(
        expect.arrayContaining(["limit", "before_seq", "k", "budget"]),
      );
    });

    it.each(NOT_PLAIN)("refuses %j in every one of them with 422 request_schema naming it", async (value) => {
      for (const target of integers) {
        const res = await t.app.inject({
          method: target.method as "GET" | "POST",
          url: `${target.url}?${target.name}=${encodeURIComponent(value)}`,
          headers: headersFor(target.url, headers),
          ...(target.method === "POST" ? { payload: {} } : {}),
        });
        const context = `${target.method} ${target.url}?${target.name}=${value} -> ${res.statusCode} ${res.body}`;
        expect(res.statusCode, context).toBe(422);
        expect(res.json().code, context).toBe("request_schema");
        expect(
          res.json().errors.find((e: { path: string }) => e.path === `querystring.${target.name}`),
          context,
        ).toMatchObject({ message: "must be an integer in plain decimal digits" });
      }
    });

    it("accepts plain decimal, negative where the bounds allow", async () => {
      const ok = await t.app.inject({ url: "/timeline?entity=e&limit=10&before_seq=0", headers });
      expect(ok.statusCode, ok.body).toBe(200);
      const bounded = await t.app.inject({ url: "/timeline?entity=e&limit=-1", headers });
      expect(bounded.statusCode).toBe(422);
      expect(bounded.json().errors[0]).toMatchObject({ path: "querystring.limit", message: "must be >= 1" });
    });

    it("applies to an artifact's integer parameters given as query parameters", () => {
      const params = {
        n: { type: "integer", required: true },
        x: { type: "number", required: true },
      } as const;
      expect(queryArguments(params, { n: "12", x: "1e1" })).toEqual({ n: 12, x: 10 });
      for (const value of NOT_PLAIN) {
        expect(() => validateArguments(params, queryArguments(params, { n: value, x: "1" })), value).toThrow(
          /parameters/,
        );
      }
    });
  });

  describe("a query string that is not validly percent-encoded", () => {
    it.each([
      ["/search?q=%FF", "querystring.q"],
      ["/search?q=%E2%82", "querystring.q"],
      ["/timeline?entity=e&limit=%", "querystring.limit"],
      ["/timeline?entity=%zz", "querystring.entity"],
      ["/timeline?%FF=1", "querystring"],
      ["/records?x=%C0%AF", "querystring.x"],
    ])("%s is 400 bad_request naming the parameter", async (url, path) => {
      const res = await t.app.inject({ url, headers });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
      expect(res.json()).toMatchObject({ code: "bad_request", errors: [{ path }] });
    });

    it("writes nothing on a write route", async () => {
      const before = await records();
      const res = await t.app.inject({
        method: "POST",
        url: "/records?note=%FF",
        headers,
        payload: {
          records: [{ collection: "customer_events", entity: "e", type: "t", text: "x", content: {} }],
        },
      });
      expect(res.statusCode).toBe(400);
      expect(await records()).toBe(before);
    });

    it("comes after the key check (401 first)", async () => {
      const res = await t.app.inject({ url: "/search?q=%FF" });
      expect(res.statusCode).toBe(401);
    });

    it("leaves valid escapes, `+` and UTF-8 alone", async () => {
      const res = await t.app.inject({ url: "/search?q=caf%C3%A9+au+lait%21", headers });
      expect(res.statusCode, res.body).toBe(200);
    });
  });

  describe("the reference page at /docs", () => {
    it.each([
      "/docs",
      "/docs/",
      "/docs/static/swagger-ui-bundle.js",
      "/docs/static/swagger-ui.css",
      "/docs/static/swagger-initializer.js",
      "/docs/static/index.html",
      "/docs/json",
    ])("%s carries the console's security headers", async (url) => {
      const res = await t.app.inject({ url });
      expect(res.statusCode).toBeLessThan(400);
      const csp = String(res.headers["content-security-policy"]);
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("default-src 'self'");
      expect(csp).not.toContain("unsafe");
      expect(res.headers["x-frame-options"]).toBe("DENY");
      expect(res.headers["x-content-type-options"]).toBe("nosniff");
      expect(res.headers["referrer-policy"]).toBe("no-referrer");
    });

    it("loads no script of its own inline and nothing from another origin", async () => {
      const page = (await t.app.inject({ url: "/docs/" })).body;
      expect(page).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
      expect(page).not.toMatch(/(src|href)="(https?:)?\/\//);
      expect(page).not.toMatch(/\sstyle=/);
    });
  });
});
