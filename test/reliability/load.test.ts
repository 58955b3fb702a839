// Mixed load (autocannon): writes, searches, views, document and timeline reads and artifact
// renders from 32 connections. Zero errors and zero non-2xx; the latency percentiles are printed.
// LOAD_SECONDS sets the duration (default 5 s in the suite; 60 s for the long variant).
import autocannon from "autocannon";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.js";
import { enrichAll } from "../support/worker.js";

const SECONDS = Number(process.env.LOAD_SECONDS ?? 5);
const CONNECTIONS = 32;

describe("mixed load from 32 connections", () => {
  let t: TestApp;
  let url: string;
  let key: string;

  beforeAll(async () => {
    t = await createTestApp();
    const ws = await t.workspace("load");
    key = ws.key;
    await t.publishExample(ws.headers);
    const records = Array.from({ length: 200 }, (_, i) => ({
      collection: "customer_events",
      entity: `c${i % 10}`,
      type: i % 2 ? "ticket" : "call",
      text: `customer c${i % 10} reported ${["a refund", "a login failure", "slow pages", "a billing error"][i % 4]} (${i})`,
      content: { channel: ["email", "chat", "phone", "web"][i % 4], priority: (i % 5) + 1 },
    }));
    const res = await t.app.inject({
      method: "POST",
      url: "/records",
      headers: ws.headers,
      payload: { records },
    });
    expect(res.statusCode).toBe(200);
    await enrichAll(t.db, ws.id);
    url = await t.app.listen({ port: 0, host: "127.0.0.1" });
  });
  afterAll(() => t.close());

  it("answers every request without an error", { timeout: (SECONDS + 60) * 1000 }, async () => {
    const json = (method: "GET" | "POST", path: string, body?: object): autocannon.Request => ({
      method,
      path,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    let written = 0;
    const result = await autocannon({
      url,
      connections: CONNECTIONS,
      duration: SECONDS,
      requests: [
        {
          ...json("POST", "/records"),
          setupRequest: (request) => ({
            ...request,
            body: JSON.stringify({
              records: [
                {
                  collection: "customer_events",
                  entity: "c1",
                  type: "ticket",
                  text: `load write ${written++}`,
                },
              ],
            }),
          }),
        },
        json("POST", "/search", { mode: "hybrid", q: "refund billing", k: 10 }),
        json("GET", "/timeline?entity=c2&limit=20"),
        json("POST", "/views/customer_history/query", { customer: "c3", question: "login failure" }),
        json("GET", "/document?entity=c4"),
        json("POST", "/search", { mode: "text", q: "slow pages", scope: { entities: ["c5"] } }),
        json("POST", "/artifacts/support_brief/render", { customer: "c6", question: "refund" }),
      ],
    });
    console.log(
      `load: ${result.requests.total} requests in ${SECONDS} s from ${CONNECTIONS} connections, ` +
        `p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, errors ${result.errors}, non-2xx ${result.non2xx}`,
    );
    expect(result.requests.total).toBeGreaterThan(CONNECTIONS);
    expect(result.errors).toBe(0);
    expect(result.timeouts).toBe(0);
    expect(result.non2xx).toBe(0);
  });
});
