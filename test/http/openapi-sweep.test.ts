// Schemathesis-style sweep (schemathesis itself cannot be installed here: its registry is out
// of reach): every operation /openapi.json publishes is called with path parameters, query
// strings and bodies generated from its own schemas, so most requests pass validation and reach
// the domain code. No reply may be a 5xx, and every reply must match the schema its route
// documents (test/support/response-contract.ts fails the file otherwise).
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.js";
import { schemaValue } from "../support/schema-arbitrary.js";
import { enrichAll } from "../support/worker.js";

// The one 5xx the contract prescribes for a valid request here: the offline fake provider cannot
// answer, so POST /answer is 502 answer_model (its model behaviour is tested in test/answer).
const PRESCRIBED_5XX = new Set(["answer_model"]);

// Requests per operation; SWEEP_RUNS raises it for a longer local sweep.
const RUNS = Number(process.env.SWEEP_RUNS ?? 20);

interface Operation {
  method: "GET" | "POST";
  path: string;
  parameters: { in: string; name: string; required?: boolean; schema: Record<string, any> }[];
  body?: Record<string, any>;
}

describe("every published operation, called with inputs generated from its own schemas", () => {
  let t: TestApp;
  let headers: { authorization: string };
  let operations: Operation[] = [];
  // Names and ids that exist, so generated requests also reach the paths behind a 404.
  const known: Record<string, string[]> = { id: [], name: [], entity: ["c1", "c2"] };
  const statuses = new Map<number, number>();

  beforeAll(async () => {
    t = await createTestApp();
    const ws = await t.workspace("sweep");
    headers = ws.headers;
    await t.publishExample(headers);
    const ids = await t.writeRecords(headers, [
      { collection: "customer_events", entity: "c1", type: "ticket", text: "card declined", content: {} },
      { collection: "customer_facts", entity: "c1", type: "fact", key: "plan", text: "pro", content: {} },
    ]);
    known.id?.push(...ids);
    await enrichAll(t.db, ws.id);
    for (const list of ["/views", "/artifacts", "/processors"]) {
      const res = await t.app.inject({ method: "GET", url: list, headers });
      const items: { name: string }[] = Object.values(res.json()).find(Array.isArray) ?? [];
      known.name?.push(...items.map((item) => item.name));
    }
    const doc = (await t.app.inject({ method: "GET", url: "/openapi.json" })).json();
    operations = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({
        method: method.toUpperCase() as "GET" | "POST",
        path,
        parameters: op.parameters ?? [],
        body: op.requestBody?.content?.["application/json"]?.schema,
      })),
    );
  });
  afterAll(async () => {
    // The figure RELIABILITY.md quotes.
    const sent = [...statuses.values()].reduce((a, b) => a + b, 0);
    const counts = [...statuses].sort(([a], [b]) => a - b).map(([status, n]) => `${status}: ${n}`);
    console.info(
      `openapi sweep: ${sent} requests over ${operations.length} operations (${counts.join(", ")})`,
    );
    await t.close();
  });

  /** A parameter's value: generated from its schema, or (for ids, names, entities) one that exists. */
  const parameter = (p: Operation["parameters"][number]) => {
    const generated = schemaValue(p.schema);
    const existing = known[p.name];
    return existing?.length ? fc.oneof(generated, fc.constantFrom(...existing)) : generated;
  };

  const request = (op: Operation) =>
    fc.record({
      params: fc.record(Object.fromEntries(op.parameters.map((p) => [`${p.in}:${p.name}`, parameter(p)])), {
        requiredKeys: op.parameters.filter((p) => p.required).map((p) => `${p.in}:${p.name}`),
      }),
      body: op.body ? schemaValue(op.body) : fc.constant(undefined),
    });

  function url(op: Operation, params: Record<string, unknown>): string {
    const query = new URLSearchParams();
    let path = op.path;
    for (const [key, value] of Object.entries(params)) {
      const [where, name] = key.split(":") as [string, string];
      if (where === "path") path = path.replace(`{${name}}`, encodeURIComponent(String(value)));
      else for (const item of [value].flat()) query.append(name, String(item));
    }
    const search = query.toString();
    return search ? `${path}?${search}` : path;
  }

  it("answers every generated request below 500, within its documented schema", async () => {
    expect(operations.length).toBeGreaterThan(30);
    for (const op of operations) {
      await fc.assert(
        fc.asyncProperty(request(op), async ({ params, body }) => {
          const target = url(op, params);
          const res = await t.app.inject({
            method: op.method,
            url: target,
            headers,
            ...(body !== undefined ? { payload: body as object } : {}),
          });
          statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
          const context = `${op.method} ${target} ${JSON.stringify(body)?.slice(0, 300)} -> ${res.statusCode} ${res.body.slice(0, 300)}`;
          if (res.statusCode >= 500) expect(PRESCRIBED_5XX.has(res.json().code), context).toBe(true);
        }),
        { numRuns: RUNS },
      );
    }
  }, 240_000);
});
