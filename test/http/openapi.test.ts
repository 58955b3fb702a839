// /openapi.json documents every route: each request body, each success body and the problem
// details of every refusal (the suite checks replies against them: test/support/response-contract).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ajv } from "../../src/platform/schema.js";
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
      // 204 No Content has no body to document (DELETE /keys/{id}).
      if (success?.[0] !== "204") {
        expect((success?.[1] as any)?.content?.["application/json"]?.schema, name).toBeDefined();
      }
      if (name !== "get /health") expect(op.responses["4XX"] ?? op.responses["4xx"], name).toBeDefined();
    }
  });

  it("documents the body of every operation that takes one", () => {
    for (const { name, method, op } of operations()) {
      if (method !== "post" || BODILESS.has(name)) continue;
      expect(op.requestBody?.content?.["application/json"]?.schema, name).toBeDefined();
    }
  });

  const bodySchema = (name: string) => {
    const [method, path] = name.split(" ") as [string, string];
    return doc.paths[path]?.[method]?.requestBody?.content?.["application/json"]?.schema;
  };

  it("publishes the exact request of POST /search and POST /records, closed to unknown fields", () => {
    const search = ajv.compile(bodySchema("post /search"));
    expect(search({ mode: "hybrid", q: "refund", k: 5, scope: { entities: ["c1"], depth_lte: 2 } })).toBe(
      true,
    );
    expect(
      search({
        sources: [{ name: "a", mode: "text", scope: { collections: ["x"] } }],
        fuse: { kind: "rrf" },
      }),
    ).toBe(true);
    for (const wrong of [
      { mode: "fuzzy" },
      { k: 0 },
      { scope: { colections: ["x"] } },
      { rerank: {} },
      { limit: 5 },
    ]) {
      expect(search(wrong), JSON.stringify(wrong)).toBe(false);
    }
    const write = ajv.compile(bodySchema("post /records"));
    const row = { collection: "customer_events", entity: "c1", type: "note", text: "hi" };
    expect(write({ records: [row] })).toBe(true);
    for (const wrong of [
      { ...row, status: "live" },
      { ...row, seq: 1 },
      { ...row, entity: " " },
      { ...row, scores: { Bad: 1 } },
    ]) {
      expect(write({ records: [wrong] }), JSON.stringify(wrong)).toBe(false);
    }
  });

  it("refuses through the published schema what it documents, with the field's path", async () => {
    const ws = await t.workspace("openapi-bodies");
    await t.publishExample(ws.headers);
    const search = await t.app.inject({
      method: "POST",
      url: "/search",
      headers: ws.headers,
      payload: { mode: "text", q: "x", k: 500, scope: { keyed: "sometimes" } },
    });
    expect(search.statusCode).toBe(422);
    expect(search.json().code).toBe("request_schema");
    expect(
      search
        .json()
        .errors.map((e: { path: string }) => e.path)
        .sort(),
    ).toEqual(["k", "scope.keyed"]);
    const write = await t.app.inject({
      method: "POST",
      url: "/records",
      headers: ws.headers,
      payload: { records: [{ collection: "customer_events", entity: "c1", type: "note", seq: 5 }] },
    });
    expect(write.statusCode).toBe(422);
    expect(write.json().errors).toEqual([{ path: "records.0.seq", message: "is not allowed" }]);
  });
});
