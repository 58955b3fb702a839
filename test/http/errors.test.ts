import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BODY_LIMIT_BYTES } from "../../src/http/index.js";
import { createTestApp, type TestApp } from "../support/app.js";

const PROBLEM = "application/problem+json";

describe("RFC 9457 error bodies", () => {
  let t: TestApp;
  let headers: { authorization: string };
  beforeAll(async () => {
    t = await createTestApp({
      routes: [
        (app) => {
          app.post(
            "/probe/echo",
            {
              schema: {
                body: {
                  type: "object",
                  properties: { name: { type: "string" }, count: { type: "integer", minimum: 1 } },
                  required: ["name"],
                  additionalProperties: false,
                },
                querystring: {
                  type: "object",
                  properties: { limit: { type: "integer", minimum: 1, maximum: 100 } },
                  additionalProperties: false,
                },
              },
            },
            async (request) => ({ body: request.body, query: request.query }),
          );
          app.get("/probe/crash", async () => {
            throw new Error("SELECT secret FROM internals at /src/file.ts:12");
          });
        },
      ],
    });
    ({ headers } = await t.workspace("errors"));
  });
  afterAll(() => t.close());

  function expectProblem(
    res: { headers: Record<string, unknown>; json(): Record<string, any> },
    status: number,
    code: string,
  ) {
    expect(res.headers["content-type"]).toContain(PROBLEM);
    const body = res.json();
    expect(body).toMatchObject({ type: "about:blank", status, code });
    expect(typeof body.title).toBe("string");
    expect(typeof body.detail).toBe("string");
    return body;
  }

  it("accepts a valid body and typed query", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: "/probe/echo?limit=5",
      headers,
      payload: { name: "x" },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ body: { name: "x" }, query: { limit: 5 } });
  });

  it("answers malformed JSON with 422 request_schema", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: "/probe/echo",
      headers: { ...headers, "content-type": "application/json" },
      payload: '{"name": ',
    });
    expect(res.statusCode).toBe(422);
    const body = expectProblem(res, 422, "request_schema");
    expect(Array.isArray(body.errors)).toBe(true);
  });

  it("answers an empty JSON body with 422 request_schema", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: "/probe/echo",
      headers: { ...headers, "content-type": "application/json" },
    });
    expect(res.statusCode).toBe(422);
    expectProblem(res, 422, "request_schema");
  });

  it("lists every schema failure with a dotted path", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: "/probe/echo",
      headers,
      payload: { count: "3", extra: true },
    });
    expect(res.statusCode).toBe(422);
    const body = expectProblem(res, 422, "request_schema");
    const paths = body.errors.map((e: { path: string }) => e.path).sort();
    expect(paths).toEqual(["count", "extra", "name"]);
    for (const error of body.errors) expect(typeof error.message).toBe("string");
  });

  it("does not coerce body types", async () => {
    const res = await t.app.inject({ method: "POST", url: "/probe/echo", headers, payload: { name: 5 } });
    expect(res.statusCode).toBe(422);
  });

  it("validates query strings with the parameter name as path", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: "/probe/echo?limit=0&bogus=1",
      headers,
      payload: { name: "x" },
    });
    expect(res.statusCode).toBe(422);
    const body = expectProblem(res, 422, "request_schema");
    expect(body.errors.map((e: { path: string }) => e.path).sort()).toEqual([
      "querystring.bogus",
      "querystring.limit",
    ]);
  });

  it("answers an unknown route with 404 not_found", async () => {
    const res = await t.app.inject({ url: "/nowhere", headers });
    expect(res.statusCode).toBe(404);
    expectProblem(res, 404, "not_found");
  });

  it("answers a wrong method with 405 method_not_allowed and Allow", async () => {
    const res = await t.app.inject({ method: "DELETE", url: "/probe/echo", headers });
    expect(res.statusCode).toBe(405);
    expectProblem(res, 405, "method_not_allowed");
    expect(res.headers.allow).toBe("POST");
    const health = await t.app.inject({ method: "POST", url: "/health" });
    expect(health.statusCode).toBe(405);
  });

  it("answers an oversize body with 413 payload_too_large", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: "/probe/echo",
      headers: { ...headers, "content-type": "application/json" },
      payload: JSON.stringify({ name: "x".repeat(BODY_LIMIT_BYTES) }),
    });
    expect(res.statusCode).toBe(413);
    expectProblem(res, 413, "payload_too_large");
  });

  it("answers an unexpected failure with 500 internal and no internals", async () => {
    const res = await t.app.inject({ url: "/probe/crash", headers });
    expect(res.statusCode).toBe(500);
    const body = expectProblem(res, 500, "internal");
    expect(res.body).not.toMatch(/SELECT|secret|file\.ts|at /);
    expect(body.stack).toBeUndefined();
  });
});
