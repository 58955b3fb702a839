// Property-based sweep (fast-check) over every route's request: arbitrary JSON bodies, valid
// bodies with one value replaced by a hostile one, hostile query strings and path segments, and
// query parameters no route defines (always refused: 422 request_schema, naming a plain one).
// Whatever arrives, the answer is never a 5xx, and every 4xx is a problem with a code.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.js";
import { exampleRequest } from "../support/example-catalog.js";
import { enrichAll } from "../support/worker.js";

// Runs per property; FUZZ_RUNS raises it for a longer local sweep.
const RUNS = Number(process.env.FUZZ_RUNS ?? 60);
let tried = 0;

/** Strings a client could send that storage or parsing might choke on. */
const hostileString = fc.oneof(
  {
    arbitrary: fc.constantFrom(
      "\u0000",
      "a\u0000b",
      "\ud800",
      "x\udfff",
      "",
      " ",
      "'; DROP TABLE records; --",
      "%00",
      "🙂",
    ),
    weight: 3,
  },
  { arbitrary: fc.string({ unit: "binary", maxLength: 40 }), weight: 2 },
  {
    arbitrary: fc.string({
      unit: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)),
      maxLength: 3,
    }),
    weight: 1,
  },
  { arbitrary: fc.string({ maxLength: 3 }).map((s) => s.repeat(3000)), weight: 1 },
);

/** Numbers at and past the edges of every column and parser. */
const hostileNumber = fc.oneof(
  {
    arbitrary: fc.constantFrom(
      0,
      -1,
      1.5,
      -0,
      2 ** 31,
      2 ** 31 - 1,
      2 ** 53,
      2 ** 63,
      -(2 ** 63),
      1e308,
      -1e308,
      5e-324,
    ),
    weight: 3,
  },
  { arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }), weight: 1 },
  { arbitrary: fc.integer(), weight: 1 },
);

const hostileLeaf = fc.oneof(hostileString, hostileNumber, fc.boolean(), fc.constant(null));

/** A JSON value with hostile leaves, sometimes nested deeply. */
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      hostileLeaf,
      fc.array(tie("value"), { maxLength: 4 }),
      fc.dictionary(hostileString, tie("value"), { maxKeys: 4 }),
    ),
  })).value,
  fc.integer({ min: 60, max: 3000 }).map((levels) => {
    let value: unknown = "leaf";
    for (let i = 0; i < levels; i++) value = i % 2 ? [value] : { a: value };
    return value;
  }),
);

/** Percent-encodes text; a lone surrogate has no UTF-8 form, so its would-be bytes are sent. */
function encode(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return "%ED%A0%80";
  }
}

function validlyEncoded(component: string): boolean {
  try {
    decodeURIComponent(component);
    return true;
  } catch {
    return false;
  }
}

/** What replaces one value of a valid body: mostly a hostile leaf, sometimes a whole structure. */
const replacement = fc.oneof({ arbitrary: hostileLeaf, weight: 4 }, { arbitrary: hostileValue, weight: 1 });

/** Replaces the value at one path of a valid body (chosen by index) with a hostile one. */
function mutate(body: unknown, choice: number, replacement: unknown): unknown {
  const paths: (string | number)[][] = [];
  const walk = (value: unknown, path: (string | number)[]) => {
    paths.push(path);
    if (Array.isArray(value)) {
      for (const [i, item] of value.entries()) walk(item, [...path, i]);
    } else if (value && typeof value === "object")
      for (const [k, v] of Object.entries(value)) walk(v, [...path, k]);
  };
  walk(body, []);
  const target = paths[choice % paths.length] ?? [];
  if (target.length === 0) return replacement;
  const copy = structuredClone(body) as Record<string | number, unknown>;
  let node = copy;
  for (const segment of target.slice(0, -1)) node = node[segment] as Record<string | number, unknown>;
  node[target.at(-1) as string | number] = replacement;
  return copy;
}

describe("fuzzing every route: never a 5xx, every refusal a problem with a code", () => {
  let t: TestApp;
  let headers: { authorization: string };
  const ids = { record: "", use: "" };

  // Valid bodies per route, the seeds of the mutations.
  let bodies: { method: "POST"; url: string; body: unknown }[] = [];

  async function send(method: "GET" | "POST", url: string, payload?: unknown, raw?: string) {
    tried++;
    const res = await t.app.inject({
      method,
      url,
      headers: raw === undefined ? headers : { ...headers, "content-type": "application/json" },
      ...(raw !== undefined ? { payload: raw } : payload !== undefined ? { payload: payload as object } : {}),
    });
    const context = `${method} ${url} ${raw ?? JSON.stringify(payload)?.slice(0, 300)} -> ${res.statusCode} ${res.body.slice(0, 300)}`;
    expect(res.statusCode, context).toBeLessThan(500);
    if (res.statusCode >= 400) {
      expect(res.headers["content-type"], context).toMatch(/^application\/problem\+json/);
      expect(typeof res.json().code, context).toBe("string");
    }
  }

  beforeAll(async () => {
    t = await createTestApp();
    const ws = await t.workspace("fuzz");
    headers = ws.headers;
    await t.publishExample(headers);
    [ids.record] = (await t.writeRecords(headers, [
      {
        collection: "customer_events",
        entity: "c1",
        type: "ticket",
        text: "card declined",
        content: { topic: "billing", priority: 4, tags: ["a"] },
      },
      {
        collection: "customer_facts",
        entity: "c1",
        type: "fact",
        key: "plan",
        text: "pro",
        content: { tier: "pro" },
      },
      {
        collection: "edges",
        entity: "kb",
        type: "link",
        text: "a b",
        content: { subject: "a", object: "b", predicate: "p" },
      },
    ])) as [string];
    await enrichAll(t.db, ws.id);
    const use = await t.app.inject({
      method: "POST",
      url: "/artifacts/support_brief/uses",
      headers,
      payload: { parameters: { customer: "c1", question: "card" } },
    });
    expect(use.statusCode, use.body).toBe(200);
    ids.use = use.json().id;
    const example = await exampleRequest();
    bodies = [
      {
        method: "POST",
        url: "/records",
        body: {
          records: [
            {
              collection: "customer_facts",
              entity: "c2",
              type: "fact",
              key: "plan",
              text: "t",
              content: { tier: "free" },
              occurred_at: "2026-01-01T00:00:00Z",
              dedupe_key: "d1",
              scores: { s: 1 },
              annotations: { n: { a: 1 } },
              derived_from: [ids.record],
              status: "active",
              tombstone: false,
            },
          ],
        },
      },
      {
        method: "POST",
        url: "/search",
        body: {
          mode: "hybrid",
          q: "card",
          k: 5,
          include: ["text", "scores"],
          scope: {
            entities: ["c1"],
            types: ["ticket"],
            occurred_after: "2020-01-01T00:00:00Z",
            depth_lte: 0,
            status: "active",
            keyed: "any",
            versions: "current",
          },
          params: { candidates: 50 },
          render: true,
          fence: { tag: "m", preamble: "p" },
        },
      },
      {
        method: "POST",
        url: "/search",
        body: {
          mode: "structured",
          scope: { collections: ["customer_events"] },
          where: { priority: { gte: 1, lte: 5 }, tags: { contains_any: ["a"] }, topic: { in: ["billing"] } },
          order_by: [{ field: "priority", direction: "desc" }],
          fields: ["topic"],
        },
      },
      {
        method: "POST",
        url: "/search",
        body: {
          q: "card",
          sources: [
            { name: "t", mode: "text", scope: { collections: ["customer_events"] }, k: 5, weight: 2 },
            { name: "r", mode: "recent", scope: { collections: ["customer_events"] } },
          ],
          fuse: { kind: "rrf", rank_constant: 60 },
          boost: ["const", 1],
        },
      },
      {
        method: "POST",
        url: "/search",
        body: {
          mode: "text",
          q: "card",
          rank: [
            "sum",
            [
              ["text_match"],
              ["decay", ["age_hours", "created_at"], { midpoint: 24, exponent: 1 }],
              ["score", "urgency"],
            ],
          ],
        },
      },
      {
        method: "POST",
        url: "/views/customer_history/query",
        body: { customer: "c1", question: "card", limit: 5 },
      },
      {
        method: "POST",
        url: "/views/topic_graph/query",
        body: { seed: "a", depth: 2, direction: "both", limit: 5 },
      },
      {
        method: "POST",
        url: "/cursor",
        body: { consumer: "x", entity: "c1", position: 1, scope_hash: "a".repeat(64), force: true },
      },
      {
        method: "POST",
        url: "/backfill",
        body: { collection: "customer_events", version: 1, processor: "urgency", max_rows: 5 },
      },
      { method: "POST", url: "/reindex", body: { since_seq: 1, confirm: true } },
      { method: "POST", url: "/catalog?dry_run=true", body: example },
      { method: "POST", url: "/artifacts/support_brief/render", body: { customer: "c1", question: "card" } },
      {
        method: "POST",
        url: "/artifacts/support_brief/uses",
        body: { parameters: { customer: "c1", question: "card" }, snapshot: false },
      },
      {
        method: "POST",
        url: `/artifact-uses/${ids.use}/feedback`,
        body: {
          kind: "correction",
          source: "end_user",
          score: 0.5,
          label: "l",
          comment: "c",
          expected: "e",
          actual_excerpt: "a",
          dedupe_key: "k",
          execution_refs: ["r"],
        },
      },
    ];
  });
  afterAll(() => {
    console.log(`fuzz: ${tried} requests tried`);
    return t.close();
  });

  it("valid bodies with one value replaced by a hostile one", async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(bodies.length - 1), fc.nat(), replacement, async (which, choice, value) => {
        const target = bodies[which] as (typeof bodies)[number];
        await send(target.method, target.url, mutate(target.body, choice, value));
      }),
      { numRuns: RUNS * 5 },
    );
  });

  it("arbitrary bodies on every route that takes one", async () => {
    const urls = [
      "/records",
      "/search",
      "/views/customer_history/query",
      "/views/nope/query",
      "/cursor",
      "/backfill",
      "/reindex",
      "/catalog?dry_run=true",
      `/backfill/${ids.record}/cancel`,
      `/jobs/${ids.record}/retry`,
    ];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...urls), hostileValue, async (url, body) => {
        await send("POST", url, body === undefined ? {} : body);
      }),
      { numRuns: RUNS * 2 },
    );
  });

  it("raw JSON texts: numbers past double range, truncations, duplicate keys", async () => {
    const texts = fc.oneof(
      fc.constantFrom("1e400", "-1e400", "1e-400", "123456789012345678901234567890", "-0"),
      fc.nat(),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...bodies), texts, fc.nat(), async (target, number, cut) => {
        const json = JSON.stringify(target.body);
        const withNumber = json.replace(/:(-?\d+(\.\d+)?)/, `:${number}`);
        await send(target.method, target.url, undefined, withNumber);
        await send(target.method, target.url, undefined, json.slice(0, cut % (json.length + 1)));
        await send(target.method, target.url, undefined, json.replace(/^\{/, '{"a":1,"a":2,'));
      }),
      { numRuns: RUNS },
    );
  });

  it("hostile query strings and path segments on every GET route", async () => {
    const routes = [
      ["/timeline", ["entity", "collections", "types", "status", "include_system", "limit", "before_seq"]],
      ["/document", ["entity", "collections", "status"]],
      ["/document/history", ["entity", "collection", "key", "limit", "before_seq"]],
      ["/delta", ["consumer", "entity", "collection", "status", "include_system", "limit"]],
      ["/search", ["q", "entity", "collection", "k"]],
      ["/catalog", []],
      ["/views", []],
      ["/rank/schema", []],
      ["/backfill", []],
      ["/artifacts/support_brief", ["customer", "question"]],
      ["/workspace", []],
      ["/entities", ["prefix", "limit", "after"]],
      ["/jobs", ["state", "kind", "limit", "before"]],
      [`/records/${ids.record}/cited-by`, ["limit", "before_seq"]],
    ] as const;
    const value = fc.oneof(
      hostileString,
      hostileNumber.map(String),
      fc.constantFrom("%", "%zz", "%ED%A0%80", "%00"),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        fc.array(fc.tuple(fc.nat(), value), { maxLength: 5 }),
        hostileString,
        async ([path, names], pairs, segment) => {
          const query = pairs
            .map(
              ([i, v]) =>
                `${names[i % Math.max(1, names.length)] ?? "x"}=${v.startsWith("%") ? v : encode(v)}`,
            )
            .join("&");
          await send("GET", `${path}?${query}`);
          const encoded = encode(segment);
          for (const template of ["/records/", "/jobs/", "/backfill/", "/artifact-uses/", "/artifacts/"])
            await send("GET", `${template}${encoded}`);
          await send("POST", `/views/${encoded}/query`, {});
          await send("POST", `/artifacts/${encoded}/render`, {});
        },
      ),
      { numRuns: RUNS * 2 },
    );
  });

  it("query parameters a route does not define, on every route: refused, named", async () => {
    // Valid requests apart from the extra parameter, so the query string is what gets judged.
    const targets: { method: "GET" | "POST"; url: string; known: string[]; body?: unknown }[] = [
      { method: "GET", url: "/timeline?entity=c1", known: ["entity", "collections", "types", "limit"] },
      { method: "GET", url: "/document?entity=c1", known: ["entity", "collections", "status"] },
      {
        method: "GET",
        url: "/document/history?entity=c1&collection=customer_facts&key=plan",
        known: ["entity", "collection", "key", "limit", "before_seq"],
      },
      { method: "GET", url: "/delta?consumer=fuzz", known: ["consumer", "entity", "collection", "limit"] },
      { method: "GET", url: "/search?q=card", known: ["q", "entity", "collection", "k"] },
      { method: "GET", url: "/context?entity=c1", known: ["entity", "task", "budget", "consumer"] },
      { method: "GET", url: "/runs", known: ["entity", "processor", "status", "limit", "before_seq"] },
      ...["/health", "/catalog", "/views", "/collections", "/tools", "/rank/schema", "/backfill"].map(
        (url) => ({ method: "GET" as const, url, known: [] }),
      ),
      { method: "GET", url: `/records/${ids.record}`, known: [] },
      { method: "GET", url: `/artifact-uses/${ids.use}`, known: [] },
      {
        method: "GET",
        url: "/artifacts/support_brief?customer=c1&question=card",
        known: ["customer", "question"],
      },
      { method: "POST", url: "/erase", known: ["dry_run"], body: { entity: "c1" } },
      { method: "POST", url: "/erase?dry_run=true", known: ["dry_run"], body: { entity: "c1" } },
      { method: "GET", url: "/workspace", known: [] },
      { method: "GET", url: "/entities?prefix=c", known: ["prefix", "limit", "after"] },
      { method: "GET", url: "/jobs?state=queued", known: ["state", "kind", "limit", "before"] },
      { method: "GET", url: `/records/${ids.record}/cited-by`, known: ["limit", "before_seq"] },
      {
        method: "POST",
        url: "/mcp",
        known: [],
        body: { jsonrpc: "2.0", id: 1, method: "tools/list" },
      },
      ...bodies.map(({ url, body }) => ({ method: "POST" as const, url, known: ["dry_run"], body })),
    ];
    const name = fc.oneof(
      { arbitrary: fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,11}$/), weight: 3 },
      { arbitrary: hostileString, weight: 2 },
      {
        arbitrary: fc.constantFrom("__proto__", "constructor", "a[b]", "a.b", "%zz", "%00", "%ED%A0%80"),
        weight: 1,
      },
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...targets), name, hostileString, async (target, raw, value) => {
        const encodedName = raw.startsWith("%") ? raw : encode(raw);
        let decoded: string;
        try {
          decoded = decodeURIComponent(encodedName);
        } catch {
          decoded = encodedName;
        }
        fc.pre(!target.known.includes(decoded));
        const url = `${target.url}${target.url.includes("?") ? "&" : "?"}${encodedName}=${encode(value)}`;
        tried++;
        const res = await t.app.inject({
          method: target.method,
          url,
          headers:
            target.url === "/mcp" ? { ...headers, accept: "application/json, text/event-stream" } : headers,
          ...(target.body !== undefined ? { payload: target.body as object } : {}),
        });
        const context = `${target.method} ${url} -> ${res.statusCode} ${res.body.slice(0, 300)}`;
        expect(res.headers["content-type"], context).toMatch(/^application\/problem\+json/);
        // Not valid percent-encoded UTF-8 (`%zz`, a lone surrogate's bytes): 400 before any schema.
        if (!validlyEncoded(encodedName) || !validlyEncoded(encode(value))) {
          expect([res.statusCode, res.json().code], context).toEqual([400, "bad_request"]);
          return;
        }
        expect(res.statusCode, context).toBe(422);
        expect(res.json().code, context).toBe("request_schema");
        if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(decoded)) {
          const artifact = target.method === "GET" && target.url.startsWith("/artifacts/");
          const paths = res.json().errors.map((e: { path: string }) => e.path);
          // The edge's input rules name it under querystring., an artifact's own check by itself.
          const named = paths.includes(`querystring.${decoded}`) || (artifact && paths.includes(decoded));
          expect(named, context).toBe(true);
        }
      }),
      { numRuns: RUNS * 3 },
    );
  });
});
