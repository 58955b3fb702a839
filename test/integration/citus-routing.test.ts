// On Citus every hot path must run on the one node holding its workspace: each statement a
// request sends that reads or writes a distributed table is planned by the coordinator as a
// single-task router query (docs/scaling.md, "Statements that route"). The statements are the ones
// the request really sent (recorded), explained on the coordinator with their own parameters.
import type { InjectOptions } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordingDb, type Statement } from "../../bench/recorder.js";
import { CITUS_PLACEMENT } from "../../src/platform/db/citus.js";
import { createTestApp, type TestApp } from "../support/app.js";
import { createTestDb, onCitus } from "../support/db.js";
import { enrichAll } from "../support/worker.js";

const DISTRIBUTED = Object.entries(CITUS_PLACEMENT)
  .filter(([, placement]) => placement === "distributed")
  .map(([table]) => table);
const NAMES_DISTRIBUTED = new RegExp(`\\b(FROM|JOIN|INTO|UPDATE)\\s+(${DISTRIBUTED.join("|")})\\b`, "i");

describe.runIf(onCitus)("on Citus, each hot path routes to the workspace's node", () => {
  let t: TestApp;
  let recorder: ReturnType<typeof recordingDb>["recorder"];
  let headers: { authorization: string };

  beforeAll(async () => {
    const testDb = await createTestDb();
    const recording = recordingDb(testDb.db);
    recorder = recording.recorder;
    t = await createTestApp({ testDb: { ...testDb, db: recording.db } });
    const ws = await t.workspace("routing");
    headers = ws.headers;
    await t.publishExample(headers);
    await t.writeRecords(headers, [
      { collection: "customer_events", entity: "acme", type: "ticket", text: "card declined at checkout" },
      { collection: "customer_events", entity: "acme", type: "call", text: "asked for a refund" },
      { collection: "customer_facts", entity: "acme", key: "plan", type: "plan", text: "pro plan" },
    ]);
    await enrichAll(t.db, ws.id);
  });
  afterAll(() => t?.close());

  /** The statements a request sends (it must succeed). */
  async function statementsOf(request: InjectOptions): Promise<Statement[]> {
    recorder.start();
    const res = await t.app.inject({ headers, ...request });
    const statements = recorder.stop();
    expect(res.statusCode, res.body).toBeLessThan(300);
    return statements;
  }

  /** The coordinator's plan of each statement naming a distributed table, as text. */
  async function plans(statements: Statement[]): Promise<{ sql: string; plan: string }[]> {
    const out: { sql: string; plan: string }[] = [];
    for (const statement of statements) {
      if (!/^\s*(SELECT|INSERT|UPDATE|DELETE|WITH)\b/i.test(statement.sql)) continue;
      if (!NAMES_DISTRIBUTED.test(statement.sql)) continue;
      const { rows } = await t.db.query<{ "QUERY PLAN": string }>(
        `EXPLAIN ${statement.sql}`,
        statement.params,
      );
      out.push({ sql: statement.sql, plan: rows.map((row) => row["QUERY PLAN"]).join("\n") });
    }
    return out;
  }

  /** Every distributed read or write of the request is one task on one node. */
  async function expectRouted(request: InjectOptions): Promise<void> {
    const explained = await plans(await statementsOf(request));
    expect(explained.length).toBeGreaterThan(0);
    for (const { sql, plan } of explained) {
      // An INSERT … SELECT from parameters alone (a write batch from jsonb_to_recordset) is
      // evaluated on the coordinator and its rows, all of workspace $1, copied to that one shard.
      if (/pull to coordinator/.test(plan)) {
        expect(sql, plan).toMatch(/INSERT INTO \w+ \([^)]*\)\s+SELECT \$1,/);
        expect(plan, sql).not.toMatch(/Citus Adaptive/);
        continue;
      }
      const counts = [...plan.matchAll(/Task Count: (\d+)/g)].map((m) => Number(m[1]));
      expect(counts.length, `no Citus scan in the plan of:\n${sql}\n${plan}`).toBeGreaterThan(0);
      expect(counts, `more than one task for:\n${sql}\n${plan}`).toEqual(counts.map(() => 1));
      // A subplan (a result Citus gathers on the coordinator first) is a second round trip.
      expect(plan, `a distributed subplan in:\n${sql}\n${plan}`).not.toMatch(/Distributed Subplan/);
    }
  }

  it("a write batch", async () => {
    await expectRouted({
      method: "POST",
      url: "/records",
      payload: {
        records: [
          {
            collection: "customer_events",
            entity: "acme",
            type: "ticket",
            text: "login fails",
            dedupe_key: "r1",
          },
          { collection: "customer_facts", entity: "acme", key: "tier", type: "tier", text: "gold" },
        ],
      },
    });
  });

  it("the document and the timeline", async () => {
    await expectRouted({ method: "GET", url: "/document?entity=acme" });
    await expectRouted({ method: "GET", url: "/timeline?entity=acme" });
  });

  it.each(["hybrid", "text", "vector", "recent"])("a %s search over the workspace", async (mode) => {
    await expectRouted({ method: "POST", url: "/search", payload: { mode, q: "refund card", k: 5 } });
  });

  it("a hybrid search of one entity, and a structured one", async () => {
    await expectRouted({
      method: "POST",
      url: "/search",
      payload: { mode: "hybrid", q: "card declined", k: 5, scope: { entities: ["acme"] } },
    });
    await expectRouted({
      method: "POST",
      url: "/search",
      payload: {
        mode: "structured",
        k: 5,
        scope: { collections: ["customer_events"] },
        order_by: [{ field: "priority", direction: "desc" }],
      },
    });
  });

  it("a view, a render and the context", async () => {
    await expectRouted({
      method: "POST",
      url: "/views/customer_history/query",
      payload: { customer: "acme", question: "refund" },
    });
    await expectRouted({
      method: "POST",
      url: "/artifacts/support_brief/render",
      payload: { customer: "acme", question: "refund" },
    });
    await expectRouted({ method: "GET", url: "/context?entity=acme" });
  });
});
