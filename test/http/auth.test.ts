import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.js";

const PROBLEM = "application/problem+json";

describe("bearer authentication", () => {
  let t: TestApp;
  let headers: { authorization: string };
  beforeAll(async () => {
    t = await createTestApp({
      // A probe route standing in for every authenticated endpoint.
      routes: [
        (app) => {
          app.get("/probe/whoami", async (request) => ({
            workspace: request.workspace.name,
            id: request.workspace.id,
          }));
        },
      ],
    });
    ({ headers } = await t.workspace("auth-a"));
  });
  afterAll(() => t.close());

  it("lets GET /health through without a key", async () => {
    const res = await t.app.inject({ url: "/health" });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true, db: true });
  });

  it("serves the OpenAPI document and the reference page without a key", async () => {
    const spec = await t.app.inject({ url: "/openapi.json" });
    expect(spec.statusCode).toBe(200);
    expect(spec.json().openapi).toBe("3.1.0");
    expect(Object.keys(spec.json().paths)).toContain("/health");
    const docs = await t.app.inject({ url: "/docs" });
    expect(docs.statusCode).toBe(200);
    expect(docs.headers["content-type"]).toContain("text/html");
  });

  it("refuses a missing key with 401 unauthorized problem details", async () => {
    const res = await t.app.inject({ url: "/probe/whoami" });
    expect(res.statusCode).toBe(401);
    expect(res.headers["content-type"]).toContain(PROBLEM);
    expect(res.headers["www-authenticate"]).toMatch(/^Bearer/);
    expect(res.json()).toMatchObject({
      type: "about:blank",
      status: 401,
      code: "unauthorized",
      title: "Unauthorized",
    });
    expect(typeof res.json().detail).toBe("string");
  });

  it.each([
    ["a wrong key", "Bearer egk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"],
    ["a malformed key", "Bearer nonsense"],
    ["another scheme", "Basic dXNlcjpwYXNz"],
    ["an empty bearer", "Bearer "],
  ])("refuses %s with 401", async (_name, authorization) => {
    const res = await t.app.inject({ url: "/probe/whoami", headers: { authorization } });
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe("unauthorized");
  });

  it("accepts the workspace key and selects that workspace", async () => {
    const res = await t.app.inject({ url: "/probe/whoami", headers });
    expect(res.statusCode).toBe(200);
    expect(res.json().workspace).toBe("auth-a");
  });

  it("accepts the scheme name in any case", async () => {
    const res = await t.app.inject({
      url: "/probe/whoami",
      headers: { authorization: headers.authorization.replace("Bearer", "bearer") },
    });
    expect(res.statusCode).toBe(200);
  });

  it("keeps two keys as two workspaces", async () => {
    const other = await t.workspace("auth-b");
    const a = await t.app.inject({ url: "/probe/whoami", headers });
    const b = await t.app.inject({ url: "/probe/whoami", headers: other.headers });
    expect(a.json().workspace).toBe("auth-a");
    expect(b.json()).toEqual({ workspace: "auth-b", id: other.id });
  });

  it("requires a key before revealing whether a route exists", async () => {
    const anonymous = await t.app.inject({ url: "/no/such/route" });
    expect(anonymous.statusCode).toBe(401);
    const known = await t.app.inject({ url: "/no/such/route", headers });
    expect(known.statusCode).toBe(404);
    expect(known.json().code).toBe("not_found");
  });
});
