// /openapi.json documents every route: each request body, each success body and the problem
// details of every refusal (the suite checks replies against them: test/support/response-contract).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.js";

// POST routes whose request carries nothing but the path.
const BODILESS = new Set(["post /backfill/{id}/cancel", "post /jobs/{id}/retry"]);

describe("OpenAPI document", () => {
  let t: TestApp;
  let doc: { paths: Record<string, Record<string, any>> };
  beforeAll(async () => {
    t = await createTestApp();
    const res = await t.app.inject({ method: "GET", url: "/openapi.json" });
    expect(res.statusCode).toBe(200);
    doc = res.json();
  });
  afterAll(() => t.close());

  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ name: `${method} ${path}`, method, op })),
    );

  it("documents a success body and problem details for every operation", () => {
    expect(operations().length).toBeGreaterThan(25);
    for (const { name, op } of operations()) {
      const success = Object.entries(op.responses ?? {}).find(([status]) => status.startsWith("2"));
      expect(success, name).toBeDefined();
      expect((success?.[1] as any)?.content?.["application/json"]?.schema, name).toBeDefined();
      if (name !== "get /health") expect(op.responses["4XX"] ?? op.responses["4xx"], name).toBeDefined();
    }
  });

  it("documents the body of every operation that takes one", () => {
    for (const { name, method, op } of operations()) {
      if (method !== "post" || BODILESS.has(name)) continue;
      expect(op.requestBody?.content?.["application/json"]?.schema, name).toBeDefined();
    }
  });
});
