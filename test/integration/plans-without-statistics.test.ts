// A search right after a bulk import must not wait for autovacuum's ANALYZE to get a good plan:
// an entity-scoped search reads a bounded number of buffers, and its plans have the same shape,
// before and after the tables are analyzed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../src/platform/db/index.js";
import { createTestApp, type TestApp } from "../support/app.js";
import { onServer } from "../support/db.js";
import { enrichAll } from "../support/worker.js";

const ENTITIES = 40;
const PER_ENTITY = 75;
const TABLES = ["records", "embeddings", "heads", "record_access", "jobs"];

interface Plan {
  "Node Type": string;
  "Index Name"?: string;
  "Relation Name"?: string;
  "Shared Hit Blocks": number;
  "Shared Read Blocks": number;
  Plans?: Plan[];
}

/** The tables a bulk import grows: how a plan reads them is its shape. */
const GROWN = new Set(["records", "embeddings"]);

// Indexes that lead with (workspace_id, entity) read an entity's rows alike: which one the
// planner takes for an unordered entity scope is a coin toss between equals, not a shape.
const ENTITY_INDEXES = new Set(["records_entity_seq", "records_entity_recent"]);
const indexShape = (name: string) => (ENTITY_INDEXES.has(name) ? "(workspace_id, entity …)" : name);

/** A plan's shape: how it reads the grown tables (scan type and index), depth first. */
function shape(plan: Plan): string[] {
  const relation = plan["Relation Name"];
  const index = plan["Index Name"];
  const here =
    relation && GROWN.has(relation)
      ? [`${plan["Node Type"]}${index ? ` ${indexShape(index)}` : ""} on ${relation}`]
      : [];
  return [...here, ...(plan.Plans ?? []).flatMap(shape)];
}

describe.runIf(onServer)("entity-scoped searches before statistics exist", () => {
  let t: TestApp;
  let headers: { authorization: string };

  beforeAll(async () => {
    t = await createTestApp();
    // Autovacuum's analyze out of the picture: the tables keep the template's empty statistics.
    for (const table of TABLES) await t.db.exec(`ALTER TABLE ${table} SET (autovacuum_enabled = false)`);
    const ws = await t.workspace("no-stats");
    headers = ws.headers;
    await t.publishExample(headers);
    for (let e = 0; e < ENTITIES; e++) {
      await t.writeRecords(
        headers,
        Array.from({ length: PER_ENTITY }, (_, i) => ({
          collection: "customer_events",
          entity: `customer-${e}`,
          type: "ticket",
          text: `Ticket ${i} of customer ${e}: card declined, refund asked, invoice ${i % 7}`,
        })),
      );
    }
    await enrichAll(t.db, ws.id);
  }, 180_000);
  afterAll(() => t.close());

  /** The statements one request sends, with their parameters. */
  async function statementsOf(payload: object): Promise<{ sql: string; params: unknown[] }[]> {
    const seen: { sql: string; params: unknown[] }[] = [];
    const db = t.db as Db;
    const query = db.query.bind(db);
    const repeated = db.queryRepeated.bind(db);
    db.query = ((sql: string, params?: unknown[]) => {
      seen.push({ sql, params: params ?? [] });
      return query(sql, params);
    }) as Db["query"];
    db.queryRepeated = ((sql: string, params: unknown[]) => {
      seen.push({ sql, params });
      return repeated(sql, params);
    }) as Db["queryRepeated"];
    try {
      const res = await t.app.inject({ method: "POST", url: "/search", headers, payload });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().hits.length).toBeGreaterThan(0);
    } finally {
      db.query = query;
      db.queryRepeated = repeated;
    }
    return seen.filter((s) => /^\s*(WITH|SELECT)/i.test(s.sql) && /\brecords\b/.test(s.sql));
  }

  async function explain(statements: { sql: string; params: unknown[] }[]) {
    let buffers = 0;
    const shapes: string[] = [];
    for (const statement of statements) {
      const { rows } = await t.db.query<{ "QUERY PLAN": [{ Plan: Plan }] }>(
        `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${statement.sql}`,
        statement.params,
      );
      const plan = rows[0]?.["QUERY PLAN"][0].Plan as Plan;
      buffers += plan["Shared Hit Blocks"] + plan["Shared Read Blocks"];
      shapes.push(shape(plan).join(", "));
    }
    return { buffers, shapes };
  }

  const entity = { entities: ["customer-7"], collections: ["customer_events"] };
  const searches: Record<string, object> = {
    hybrid: { mode: "hybrid", q: "card declined refund", k: 10, scope: entity },
    vector: { mode: "vector", q: "card declined refund", k: 10, scope: entity },
    text: { mode: "text", q: "card declined refund", k: 10, scope: entity },
    rrf: {
      q: "card declined refund",
      k: 10,
      sources: [
        { name: "v", mode: "vector", scope: entity },
        { name: "t", mode: "text", scope: entity },
      ],
      fuse: { kind: "rrf" },
    },
  };

  it("reads a bounded number of buffers, with the same plans before and after ANALYZE", async () => {
    const statements: Record<string, { sql: string; params: unknown[] }[]> = {};
    for (const [name, body] of Object.entries(searches)) statements[name] = await statementsOf(body);
    const before: Record<string, { buffers: number; shapes: string[] }> = {};
    for (const [name, list] of Object.entries(statements)) before[name] = await explain(list);
    await t.db.exec(`ANALYZE ${TABLES.join(", ")}`);
    for (const [name, list] of Object.entries(statements)) {
      const after = await explain(list);
      // The entity's 75 records and their embeddings, read by index: a few hundred buffers, where
      // reading the workspace's 3,000 embeddings for each of its records reads tens of thousands.
      expect(before[name]?.buffers, name).toBeLessThan(2000);
      expect(before[name]?.shapes, name).toEqual(after.shapes);
    }
  });
});
