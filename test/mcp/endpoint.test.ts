// POST /mcp and GET /tools at the HTTP level: authentication, the Origin rule, header checks,
// re-authorization after a package change, and discovery.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exampleRequest } from "../support/example-catalog.js";
import { type McpHarness, mcpHarness, REVISIONS } from "../support/mcp.js";

let h: McpHarness;
const ALLOWED = "https://agent.example";

beforeAll(async () => {
  h = await mcpHarness({ API_CORS_ORIGINS: ALLOWED });
});
afterAll(() => h.close());

/** A tools/call the official client sends at 2026-07-28, captured as URL, headers and body. */
async function capturedCall(): Promise<{ headers: Record<string, string>; body: Record<string, unknown> }> {
  let captured: { headers: Record<string, string>; body: Record<string, unknown> } | undefined;
  const client = new Client(
    { name: "capture", version: "1" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  const transport = new StreamableHTTPClientTransport(new URL("/mcp", h.url), {
    requestInit: { headers: h.headers },
    fetch: async (input, init) => {
      const body = JSON.parse(String(init?.body ?? "{}"));
      if (body.method === "tools/call") {
        captured = { headers: Object.fromEntries(new Headers(init?.headers).entries()), body };
      }
      return fetch(input, init);
    },
  });
  await client.connect(transport);
  await client.callTool({ name: "get_record", arguments: { id: "00000000-0000-4000-8000-000000000000" } });
  await client.close();
  if (!captured) throw new Error("no tools/call captured");
  return captured;
}

function postMcp(headers: Record<string, string>, body: unknown) {
  return fetch(new URL("/mcp", h.url), { method: "POST", headers, body: JSON.stringify(body) });
}

describe("POST /mcp", () => {
  it("the official client's modern tools/call carries the standard headers and passes", async () => {
    const { headers, body } = await capturedCall();
    expect(headers["mcp-protocol-version"]).toBe("2026-07-28");
    expect(headers["mcp-method"]).toBe("tools/call");
    expect(headers["mcp-name"]).toBe("get_record");
    const res = await postMcp(headers, body);
    expect(res.status).toBe(200);
    expect((await res.json()).result.isError).toBe(true);
  });

  it.each([
    ["Mcp-Name naming another tool", { "mcp-name": "log_event" }],
    ["Mcp-Method naming another method", { "mcp-method": "tools/list" }],
    ["MCP-Protocol-Version disagreeing with the body", { "mcp-protocol-version": "2025-11-25" }],
  ])("refuses %s with 400 and a JSON-RPC error", async (_, override) => {
    const { headers, body } = await capturedCall();
    const res = await postMcp({ ...headers, ...override }, body);
    expect(res.status).toBe(400);
    const reply = await res.json();
    expect(reply.jsonrpc).toBe("2.0");
    expect(reply.error.code).toBeLessThan(0);
  });

  it("refuses a modern request without Mcp-Method (400)", async () => {
    const { headers, body } = await capturedCall();
    const { "mcp-method": _, ...rest } = headers;
    expect((await postMcp(rest, body)).status).toBe(400);
  });

  it("401 without a key or with a wrong one; the clients cannot connect", async () => {
    const { headers, body } = await capturedCall();
    const { authorization: _, ...anonymous } = headers;
    const res = await postMcp(anonymous, body);
    expect(res.status).toBe(401);
    expect((await res.json()).code).toBe("unauthorized");
    for (const revision of REVISIONS) {
      await expect(h.connect(revision, "egk_wrong")).rejects.toThrow();
    }
  });

  it("403 for an Origin not in API_CORS_ORIGINS; a listed one is served", async () => {
    const { headers, body } = await capturedCall();
    const refused = await postMcp({ ...headers, origin: "https://evil.example" }, body);
    expect(refused.status).toBe(403);
    expect((await refused.json()).code).toBe("origin_forbidden");
    const served = await postMcp({ ...headers, origin: ALLOWED }, body);
    expect(served.status).toBe(200);
  });

  it("no session: the initialize handshake answers without Mcp-Session-Id; GET is not a stream", async () => {
    const res = await postMcp(
      { ...h.headers, "content-type": "application/json", accept: "application/json, text/event-stream" },
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "raw", version: "1" },
        },
      },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("mcp-session-id")).toBeNull();
    const get = await fetch(new URL("/mcp", h.url), { headers: h.headers });
    expect(get.status).toBe(405);
  });
});

describe("re-authorization against current discovery", () => {
  it("a tool removed by a new package fails for a client that listed it before", async () => {
    const other = await h.test.workspace("reauth");
    await h.test.publishExample(other.headers);
    const client = await h.connect("2026-07-28", other.key);
    const legacy = await h.connect("2025-11-25", other.key);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("log_event");
    expect((await legacy.listTools()).tools.map((t) => t.name)).toContain("log_event");

    const example = await exampleRequest();
    const mcp = (example.files["mcp/support.yaml"] as string)
      .replace("version: 1", "version: 2")
      .replace(/ {2}- name: log_event[\s\S]*$/, "");
    const manifest = (example.files["packages/support.yaml"] as string)
      .replace("version: 1.0.0", "version: 1.1.0")
      .replace("mcp: support_tools@1", "mcp: support_tools@2");
    const res = await h.test.app.inject({
      method: "POST",
      url: "/catalog",
      headers: other.headers,
      payload: {
        package: "support@1.1.0",
        files: { ...example.files, "mcp/support_v2.yaml": mcp, "packages/support_v2.yaml": manifest },
      },
    });
    expect(res.statusCode, res.body).toBe(200);

    for (const c of [client, legacy]) {
      await expect(
        c.callTool({ name: "log_event", arguments: { entity: "acme", type: "call", text: "after" } }),
      ).rejects.toThrow(/unknown tool/);
      expect((await c.listTools()).tools.map((t) => t.name)).not.toContain("log_event");
    }
  });
});

describe("GET /tools", () => {
  it("the envelope: protocol, package, interface and catalog hashes, tools with bindings", async () => {
    const res = await h.test.app.inject({ url: "/tools", headers: h.headers });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    const catalog = (await h.test.app.inject({ url: "/catalog", headers: h.headers })).json();
    expect(body.protocol).toBe("engram.mcp/v1");
    expect(body.package).toEqual({ name: "support", version: "1.0.0", hash: expect.any(String) });
    expect(body.interface).toEqual({ name: "support_tools", version: 1, hash: expect.any(String) });
    expect(body.catalog_hash).toBe(catalog.catalog_hash);
    const views = (await h.test.app.inject({ url: "/views", headers: h.headers })).json().views;
    const view = views.find((v: { name: string }) => v.name === "customer_history");
    const tool = body.tools[0];
    expect(tool.binding).toEqual({ kind: "view", reference: "customer_history@1", hash: view.hash });
    const { $schema, ...input } = tool.input_schema;
    expect($schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(input).toEqual(view.input_schema);
    const ingest = body.tools.find((t: { kind: string }) => t.kind === "ingest");
    expect(Object.keys(ingest.input_schema.properties)).toEqual([
      "entity",
      "type",
      "text",
      "content",
      "occurred_at",
      "dedupe_key",
    ]);
    expect(ingest.output_schema.required).toEqual(["id", "ready", "duplicate"]);
    const record = body.tools.find((t: { kind: string }) => t.kind === "record");
    expect(record.binding).toEqual({ kind: "record", reference: null, hash: null });
  });

  it("409 no_catalog before anything is published; the MCP endpoint then lists no tools", async () => {
    const fresh = await h.test.workspace("fresh");
    const res = await h.test.app.inject({ url: "/tools", headers: fresh.headers });
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe("no_catalog");
    const client = await h.connect("2026-07-28", fresh.key);
    expect((await client.listTools()).tools).toEqual([]);
  });

  it("empty tools when the package has no mcp binding", async () => {
    const bare = await h.test.workspace("bare");
    const example = await exampleRequest();
    const files = { ...example.files };
    delete files["mcp/support.yaml"];
    files["packages/support.yaml"] = (files["packages/support.yaml"] as string).replace(
      "mcp: support_tools@1\n",
      "",
    );
    const published = await h.test.app.inject({
      method: "POST",
      url: "/catalog",
      headers: bare.headers,
      payload: { package: example.package, files },
    });
    expect(published.statusCode, published.body).toBe(200);
    const body = (await h.test.app.inject({ url: "/tools", headers: bare.headers })).json();
    expect(body.interface).toBeNull();
    expect(body.tools).toEqual([]);
  });

  it("401 without a key", async () => {
    expect((await h.test.app.inject({ url: "/tools" })).statusCode).toBe(401);
  });
});
