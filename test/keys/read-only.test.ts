// A read-only key reads everything and writes nothing: every route that is not a read refuses
// it with 403 key_read_only before doing any work, whatever the body.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertKey } from "../../src/workspaces/index.js";
import { createTestApp, type TestApp } from "../support/app.js";

// The routes whose method is not GET but which only read (CONVENTIONS "Keys and operations").
const READ_POSTS = new Set([
  "POST /search",
  "POST /views/{name}/query",
  "POST /artifacts/{name}/render",
  "POST /answer",
  "POST /mcp",
]);

// Routes a read-only key is refused for another reason: the workspace's keys are its admin keys'
// (403 key_scope, docs/api.md "Keys over HTTP"), the operator API the operator's (a plain 404
// here, without ADMIN_TOKEN; test/http/operator.test.ts checks a workspace key's 401 with it).
const keyRoute = (path: string) => path === "/keys" || path.startsWith("/keys/");
const operatorRoute = (path: string) => path.startsWith("/admin/");
const otherRefusal = (path: string) => keyRoute(path) || operatorRoute(path);

// Everything a workspace holds, counted: a refused request changes none of it.
const FINGERPRINT = `
  SELECT (SELECT count(*) FROM records WHERE workspace_id = $1)::int AS records,
    (SELECT max(seq) FROM records WHERE workspace_id = $1)::int AS max_seq,
    (SELECT count(*) FROM cursors WHERE workspace_id = $1)::int AS cursors,
    (SELECT count(*) FROM catalog_installs WHERE workspace_id = $1)::int AS installs,
    (SELECT count(*) FROM runs WHERE workspace_id = $1)::int AS runs,
    (SELECT count(*) FROM artifact_snapshots WHERE workspace_id = $1)::int AS snapshots,
    (SELECT count(*) FROM artifact_uses WHERE workspace_id = $1)::int AS uses,
    (SELECT count(*) FROM backfills WHERE workspace_id = $1)::int AS backfills,
    (SELECT count(*) FROM jobs WHERE workspace_id = $1)::int AS jobs`;

describe("a read-only key", () => {
  let t: TestApp;
  let workspaceId: string;
  let writer: { authorization: string };
  let reader: { authorization: string };
  let recordId = "";
  let paths: Record<string, Record<string, unknown>>;
  const fingerprint = async () => (await t.db.query(FINGERPRINT, [workspaceId])).rows[0];

  beforeAll(async () => {
    t = await createTestApp();
    const ws = await t.workspace("read-only");
    workspaceId = ws.id;
    writer = ws.headers;
    await t.publishExample(writer);
    const written = await t.writeRecords(writer, [
      { collection: "customer_events", entity: "cust_1", type: "note", text: "asked about the refund" },
    ]);
    recordId = written[0] as string;
    const key = await insertKey(
      t.db,
      { id: ws.id, name: "read-only" },
      { name: "agent", scope: "read_only" },
    );
    reader = { authorization: `Bearer ${key.api_key}` };
    paths = (await t.app.inject({ url: "/openapi.json" })).json().paths;
  });
  afterAll(() => t.close());

  const concrete = (path: string) =>
    path
      .replace(/\{id\}/g, recordId)
      .replace(/\{name\}/g, "customer_history")
      .replace(/\{[^}]+\}/g, "x");

  it("gets 403 key_read_only on every write route, and nothing changes", async () => {
    const before = await fingerprint();
    const writes = Object.entries(paths)
      .filter(([path]) => !otherRefusal(path))
      .flatMap(([path, methods]) =>
        Object.keys(methods)
          .map((method) => method.toUpperCase())
          .filter((method) => method !== "GET" && !READ_POSTS.has(`${method} ${path}`))
          .map((method) => ({ method, path })),
      );
    // The spec's writes are all there: records, catalog, erase, promote, cursor, processor runs,
    // backfills, reindex, snapshots, uses, feedback, job retries, rebinding.
    expect(writes.map((w) => `${w.method} ${w.path}`)).toEqual(
      expect.arrayContaining([
        "POST /records",
        "POST /catalog",
        "POST /erase",
        "POST /promote",
        "POST /cursor",
        "POST /processors/{name}/run",
        "POST /backfill",
        "POST /backfill/{id}/cancel",
        "POST /reindex",
        "POST /artifacts/{name}/snapshot",
        "POST /artifacts/{name}/uses",
        "POST /artifact-uses/{id}/feedback",
        "POST /jobs/{id}/retry",
        "POST /derivations/{name}/rebind",
      ]),
    );
    for (const { method, path } of writes) {
      const res = await t.app.inject({
        method: method as "POST",
        url: concrete(path),
        headers: reader,
        payload: { records: [{ collection: "customer_events", entity: "cust_1", type: "note", text: "x" }] },
      });
      expect([`${method} ${path}`, res.statusCode]).toEqual([`${method} ${path}`, 403]);
      expect(res.headers["content-type"]).toContain("application/problem+json");
      expect(res.json()).toMatchObject({ status: 403, code: "key_read_only" });
    }
    expect(await fingerprint()).toEqual(before);
  });

  it("is refused the workspace's keys (403 key_scope) and the operator API (404)", async () => {
    const routes = Object.entries(paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => ({ method: method.toUpperCase(), path })),
    );
    const keyRoutes = routes.filter(({ path }) => keyRoute(path));
    expect(keyRoutes.map((r) => `${r.method} ${r.path}`).sort()).toEqual([
      "DELETE /keys/{id}",
      "GET /keys",
      "POST /keys",
    ]);
    for (const { method, path } of routes.filter((r) => otherRefusal(r.path))) {
      const res = await t.app.inject({
        method: method as "POST",
        url: concrete(path),
        headers: reader,
        payload: { name: "x", scope: "read_write" },
      });
      const expected = keyRoute(path) ? [403, "key_scope"] : [404, "not_found"];
      expect([`${method} ${path}`, res.statusCode, res.json().code]).toEqual([
        `${method} ${path}`,
        ...expected,
      ]);
    }
  });

  it("the same write with the read-write key goes through (the refusal is the key's)", async () => {
    const payload = {
      records: [{ collection: "customer_events", entity: "cust_2", type: "note", text: "hi" }],
    };
    const refused = await t.app.inject({ method: "POST", url: "/records", headers: reader, payload });
    expect(refused.statusCode).toBe(403);
    const written = await t.app.inject({ method: "POST", url: "/records", headers: writer, payload });
    expect(written.statusCode).toBe(200);
  });

  it("calls every GET route without a key refusal", async () => {
    const reads = Object.entries(paths).filter(([path, methods]) => "get" in methods && !otherRefusal(path));
    expect(reads.length).toBeGreaterThan(20);
    for (const [path] of reads) {
      const res = await t.app.inject({ url: concrete(path), headers: reader });
      expect([path, res.statusCode]).not.toEqual([path, 401]);
      expect([path, res.statusCode]).not.toEqual([path, 403]);
    }
    const timeline = await t.app.inject({ url: "/timeline?entity=cust_1", headers: reader });
    expect(timeline.statusCode).toBe(200);
    expect(timeline.json().records.map((r: { id: string }) => r.id)).toContain(recordId);
  });

  it("searches, queries views, renders and answers without save", async () => {
    const calls = [
      { url: "/search", payload: { mode: "text", q: "refund", k: 5 } },
      { url: "/views/customer_history/query", payload: { customer: "cust_1", question: "refund" } },
      { url: "/artifacts/support_brief/render", payload: { customer: "cust_1", question: "refund" } },
    ];
    for (const call of calls) {
      const res = await t.app.inject({ method: "POST", headers: reader, ...call });
      expect([call.url, res.statusCode]).toEqual([call.url, 200]);
    }
    // The example's fake chat model cannot cite (502 answer_model): the key itself passes.
    const answer = await t.app.inject({
      method: "POST",
      url: "/answer",
      headers: reader,
      payload: { question: "What did cust_1 ask about?", entities: ["cust_1"] },
    });
    expect(answer.json().code).toBe("answer_model");
  });

  it("gets 403 on POST /answer with save: true, and nothing is saved", async () => {
    const before = await fingerprint();
    const res = await t.app.inject({
      method: "POST",
      url: "/answer",
      headers: reader,
      payload: { question: "What did cust_1 ask about?", entities: ["cust_1"], save: true },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe("key_read_only");
    expect(await fingerprint()).toEqual(before);
  });

  it("does not get 403 where the path or method does not exist (404 and 405 stay)", async () => {
    expect((await t.app.inject({ method: "POST", url: "/nowhere", headers: reader })).statusCode).toBe(404);
    expect((await t.app.inject({ method: "POST", url: "/timeline", headers: reader })).statusCode).toBe(405);
  });

  it("GET /tools lists no tool that writes", async () => {
    const names = async (headers: { authorization: string }) =>
      (await t.app.inject({ url: "/tools", headers }))
        .json()
        .tools.map((tool: { name: string }) => tool.name);
    expect(await names(writer)).toContain("log_event");
    expect(await names(reader)).toEqual(["customer_history", "support_brief", "ask_memory", "get_record"]);
  });
});
