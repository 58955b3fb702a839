// Declared sortable and filterable fields get expression indexes at publish, and structured
// search repeats their expression and predicate exactly, so the planner can walk one in order.
// Cost-based choices depend on table size; with sequential scans and sorts priced out, a plan
// without the index means the query no longer matches it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.js";
import { enrichAll } from "../support/worker.js";

describe("field indexes", () => {
  let t: TestApp;
  let headers: { authorization: string };

  beforeAll(async () => {
    t = await createTestApp();
    const ws = await t.workspace("fields");
    headers = ws.headers;
    await t.publishExample(headers);
    await t.writeRecords(
      headers,
      [1, 5, 3].map((priority) => ({
        collection: "customer_events",
        entity: "c1",
        type: "ticket",
        text: `p${priority}`,
        content: { channel: "email", priority },
      })),
    );
    await enrichAll(t.db, ws.id);
  });
  afterAll(() => t.close());

  it("creates both orders of a sortable field and one index for a filter-only field, once", async () => {
    const indexes = async () =>
      (
        await t.db.query<{ indexdef: string }>(
          "SELECT indexdef FROM pg_indexes WHERE indexname LIKE 'records\\_field\\_%' ORDER BY indexdef",
        )
      ).rows.map((row) => row.indexdef);
    const first = await indexes();
    const priority = first.filter((def) => def.includes("priority") && def.includes("customer_events"));
    expect(priority).toHaveLength(2);
    const orders = priority.map((def) => /(DESC )?NULLS LAST, seq DESC/.exec(def)?.[1] ?? "ASC ");
    expect(orders.sort()).toEqual(["ASC ", "DESC "]);
    expect(first.filter((def) => def.includes("channel") && def.includes("customer_events"))).toHaveLength(1);
    // Another workspace declaring the same fields shares them.
    await t.publishExample((await t.workspace("fields-2")).headers);
    expect(await indexes()).toEqual(first);
  });

  it("answers a structured search in the field's order through its index", async () => {
    const seen: { sql: string; params: unknown[] }[] = [];
    const query = t.db.query.bind(t.db);
    t.db.query = ((sql: string, params?: unknown[]) => {
      seen.push({ sql, params: params ?? [] });
      return query(sql, params);
    }) as typeof t.db.query;
    let res: Awaited<ReturnType<typeof t.app.inject>>;
    try {
      res = await t.app.inject({
        method: "POST",
        url: "/search",
        headers,
        payload: {
          mode: "structured",
          include: ["text"],
          scope: { collections: ["customer_events"] },
          where: { priority: { gte: 2 } },
          order_by: [{ field: "priority", direction: "desc" }],
        },
      });
    } finally {
      t.db.query = query;
    }
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().hits.map((hit: { text: string }) => hit.text)).toEqual(["p5", "p3"]);
    const proposal = seen.find((q) => q.sql.includes("ORDER BY") && q.sql.includes("priority"));
    expect(proposal).toBeDefined();
    const plan = await t.db.transaction(async (tx) => {
      await tx.exec("SET LOCAL enable_seqscan = off; SET LOCAL enable_sort = off");
      const { rows } = await tx.query<{ "QUERY PLAN": string }>(`EXPLAIN ${proposal?.sql}`, proposal?.params);
      return rows.map((row) => row["QUERY PLAN"]).join("\n");
    });
    expect(plan).toMatch(/Index Scan using records_field_\w+ on records/);
    expect(plan).not.toMatch(/Sort Key/);
  });
});
