// Hostile but ordinary inputs (issue 13): each is refused with a 4xx problem naming the field,
// or stored exactly where documented, and a refused request changes nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_INPUT_DEPTH } from "../../src/platform/input.js";
import { createTestApp, type TestApp } from "../support/app.js";
import { exampleRequest } from "../support/example-catalog.js";

const NUL = "a\u0000b";
const SURROGATE = "a\ud800b";
const BAD = { nul: NUL, surrogate: SURROGATE };

describe("input hardening", () => {
  let t: TestApp;
  let headers: { authorization: string };
  let workspaceId: string;

  const count = async () =>
    (
      await t.db.query<{ n: number }>("SELECT count(*)::int AS n FROM records WHERE workspace_id = $1", [
        workspaceId,
      ])
    ).rows[0]?.n ?? 0;

  /** Sends a request and expects a 422 request_schema problem naming `path`. */
  async function refused(
    request: { method: "GET" | "POST"; url: string; payload?: unknown; body?: string },
    path: string,
  ) {
    const before = await count();
    const res = await t.app.inject({
      method: request.method,
      url: request.url,
      headers: request.body ? { ...headers, "content-type": "application/json" } : headers,
      ...(request.body !== undefined ? { payload: request.body } : { payload: request.payload as object }),
    });
    expect(res.statusCode, res.body).toBe(422);
    expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
    const body = res.json();
    expect(body.code).toBe("request_schema");
    expect(body.errors.map((e: { path: string }) => e.path)).toContain(path);
    expect(await count()).toBe(before);
    return body;
  }

  const row = (extra: object) => ({ collection: "syntheses", entity: "e", type: "t", key: "k", ...extra });

  beforeAll(async () => {
    t = await createTestApp();
    const ws = await t.workspace("hardening");
    headers = ws.headers;
    workspaceId = ws.id;
    await t.publishExample(headers);
  });
  afterAll(() => t.close());

  describe.each(Object.entries(BAD))("a %s character", (_, bad) => {
    it.each([
      ["text", row({ text: bad }), "records.0.text"],
      ["entity", row({ entity: bad }), "records.0.entity"],
      ["type", row({ type: bad }), "records.0.type"],
      ["key", row({ key: bad }), "records.0.key"],
      ["dedupe_key", row({ dedupe_key: bad }), "records.0.dedupe_key"],
      ["a content value", row({ content: { a: [bad] } }), "records.0.content.a.0"],
      ["a content property name", row({ content: { [bad]: 1 } }), "records.0.content.a\ufffdb"],
      ["an annotation", row({ annotations: { note: bad } }), "records.0.annotations.note"],
    ])("in a record's %s is refused and nothing of the batch is written", async (_field, bad, path) => {
      await refused(
        { method: "POST", url: "/records", payload: { records: [row({ text: "fine" }), bad] } },
        path.replace("records.0", "records.1"),
      );
    });

    it.each([
      [{ mode: "text", q: bad }, "q"],
      [{ mode: "recent", scope: { entities: [bad] } }, "scope.entities.0"],
      [{ mode: "recent", scope: { types: [bad] } }, "scope.types.0"],
      [
        {
          mode: "structured",
          where: { topic: { eq: bad } },
          order_by: [{ field: "priority" }],
          scope: { collections: ["customer_events"] },
        },
        "where.topic.eq",
      ],
    ])("in a search (%j) is refused", async (spec, path) => {
      await refused({ method: "POST", url: "/search", payload: spec }, path);
    });

    it("in view parameters and the cursor body is refused", async () => {
      await refused(
        { method: "POST", url: "/views/customer_history/query", payload: { customer: bad, question: "x" } },
        "customer",
      );
      await refused(
        {
          method: "POST",
          url: "/cursor",
          payload: { consumer: bad, position: 0, scope_hash: "0".repeat(64) },
        },
        "consumer",
      );
      await refused(
        {
          method: "POST",
          url: "/cursor",
          payload: { consumer: "c", entity: bad, position: 0, scope_hash: "0".repeat(64) },
        },
        "entity",
      );
    });
  });

  const QUERY_URLS = [
    ["/timeline?entity=", "querystring.entity"],
    ["/document?entity=", "querystring.entity"],
    ["/document/history?collection=syntheses&key=k&entity=", "querystring.entity"],
    ["/delta?consumer=", "querystring.consumer"],
    ["/search?q=", "querystring.q"],
  ];

  it.each(QUERY_URLS)("a NUL in the query string of %s is refused", async (url, path) => {
    await refused({ method: "GET", url: `${url}a%00b` }, path as string);
  });

  it.each(QUERY_URLS)(
    "a surrogate's UTF-8 bytes in the query string of %s never fail the server",
    async (url) => {
      // A lone surrogate has no UTF-8 form: its would-be bytes are not valid UTF-8.
      const res = await t.app.inject({ method: "GET", url: `${url}a%ED%A0%80b`, headers });
      expect(res.statusCode, res.body).toBeLessThan(500);
    },
  );

  it("a NUL in a path parameter is refused", async () => {
    const res = await t.app.inject({ method: "GET", url: "/records/%00", headers });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0].path).toBe("params.id");
  });

  it("numbers out of range are refused: content ±1e400, depth_lte ≥ 2^31, seq ≥ 2^53, max_rows 1e400", async () => {
    for (const number of ["1e400", "-1e400"]) {
      await refused(
        {
          method: "POST",
          url: "/records",
          body: `{"records":[{"collection":"syntheses","entity":"e","type":"t","key":"k","content":{"n":${number}}}]}`,
        },
        "records.0.content.n",
      );
    }
    await refused(
      { method: "POST", url: "/search", payload: { mode: "recent", scope: { depth_lte: 2 ** 31 } } },
      "scope.depth_lte",
    );
    await refused(
      { method: "GET", url: "/timeline?before_seq=9223372036854775808" },
      "querystring.before_seq",
    );
    await refused(
      { method: "GET", url: "/timeline?before_seq=9223372036854775807" },
      "querystring.before_seq",
    );
    await refused(
      {
        method: "GET",
        url: "/document/history?entity=e&collection=syntheses&key=k&before_seq=9223372036854775808",
      },
      "querystring.before_seq",
    );
    await refused(
      { method: "POST", url: "/reindex", body: '{"since_seq": 9223372036854775808}' },
      "since_seq",
    );
    await refused(
      {
        method: "POST",
        url: "/backfill",
        body: '{"collection":"customer_events","version":1,"processor":"urgency","max_rows":1e400}',
      },
      "max_rows",
    );
    await refused(
      {
        method: "POST",
        url: "/backfill",
        payload: { collection: "customer_events", version: 2 ** 31, processor: "urgency" },
      },
      "version",
    );
    // The largest exact sequence number is accepted.
    const ok = await t.app.inject({
      method: "GET",
      url: `/timeline?before_seq=${Number.MAX_SAFE_INTEGER}`,
      headers,
    });
    expect(ok.statusCode, ok.body).toBe(200);
  });

  it("timestamps outside years 1-9999 are refused; years 1 and 99 are stored and read back exactly", async () => {
    await refused(
      {
        method: "POST",
        url: "/records",
        payload: { records: [row({ occurred_at: "0000-06-01T00:00:00Z" })] },
      },
      "records.0.occurred_at",
    );
    await refused(
      {
        method: "POST",
        url: "/records",
        payload: { records: [row({ occurred_at: "0001-01-01T00:00:00+01:00" })] },
      },
      "records.0.occurred_at",
    );
    await refused(
      {
        method: "POST",
        url: "/search",
        payload: { mode: "recent", scope: { occurred_after: "0000-01-01T00:00:00Z" } },
      },
      "scope.occurred_after",
    );
    for (const at of ["0001-01-01T00:00:00.000Z", "0099-06-30T12:00:00.000Z", "9999-12-31T23:59:59.000Z"]) {
      const res = await t.app.inject({
        method: "POST",
        url: "/records",
        headers,
        payload: { records: [row({ key: at, occurred_at: at })] },
      });
      expect(res.statusCode, res.body).toBe(200);
      const read = await t.app.inject({
        method: "GET",
        url: `/records/${res.json().inserted[0].id}`,
        headers,
      });
      expect(read.json().occurred_at).toBe(at);
    }
  });

  it("content nested beyond the documented depth is refused; 64 levels are stored", async () => {
    // Written as text: JSON.stringify itself overflows the stack at this depth.
    const nested = (levels: number) =>
      `{"records":[{"collection":"syntheses","entity":"e","type":"t","key":"deep","content":${'{"a":'.repeat(levels)}"leaf"${"}".repeat(levels)}}]}`;
    const deep = await refused(
      { method: "POST", url: "/records", body: nested(10_000) },
      `records.0.content${".a".repeat(MAX_INPUT_DEPTH - 3)}`,
    );
    expect(deep.errors[0].message).toMatch(/nests deeper than 72 levels/);
    const ok = await t.app.inject({
      method: "POST",
      url: "/records",
      headers: { ...headers, "content-type": "application/json" },
      payload: nested(63),
    });
    expect(ok.statusCode, ok.body).toBe(200);
  });

  it("a YAML alias bomb in a catalog upload is a definition error naming the file", async () => {
    const example = await exampleRequest();
    const bomb = [
      'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
      "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]",
      "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]",
      "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]",
      "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]",
      "collections: [*e]",
    ].join("\n");
    const res = await t.app.inject({
      method: "POST",
      url: "/catalog",
      headers,
      payload: { ...example, files: { ...example.files, "collections/bomb.yaml": bomb } },
    });
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json()).toMatchObject({ code: "yaml_syntax", file: "collections/bomb.yaml" });
  });
});
