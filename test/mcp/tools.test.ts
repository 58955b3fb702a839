// The tools of the example package through the official MCP client over real HTTP, at the
// current revision (2026-07-28, stateless) and through the 2025-11-25 initialize handshake.
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXAMPLE_TOOLS, type McpHarness, mcpHarness, REVISIONS } from "../support/mcp.js";
import { enrichAll } from "../support/worker.js";

let h: McpHarness;
let otherKey: string;
let otherRecord: string;

async function post(path: string, body: unknown, headers = h.headers) {
  const res = await h.test.app.inject({ method: "POST", url: path, headers, payload: body as object });
  return res.json();
}

beforeAll(async () => {
  h = await mcpHarness();
  const other = await h.test.workspace("other");
  otherKey = other.key;
  await h.test.publishExample(other.headers);
  const written = await post(
    "/records",
    { records: [{ collection: "customer_events", entity: "acme", type: "ticket", text: "secret of other" }] },
    other.headers,
  );
  otherRecord = written.inserted[0].id;
  await post("/records", {
    records: [
      { collection: "customer_events", entity: "acme", type: "ticket", text: "Invoice was charged twice" },
      { collection: "customer_facts", entity: "acme", type: "fact", key: "plan", text: "Pro plan" },
    ],
  });
  await enrichAll(h.test.db, h.workspaceId);
});
afterAll(() => h.close());

/** The parsed JSON text of a tool result; it always equals structuredContent on success. */
function payload(result: Awaited<ReturnType<Client["callTool"]>>) {
  const content = result.content as { type: string; text: string }[];
  expect(content).toHaveLength(1);
  expect(content[0]?.type).toBe("text");
  return JSON.parse(content[0]?.text as string);
}

describe.each(REVISIONS)("MCP at %s", (revision) => {
  let client: Client;
  beforeAll(async () => {
    client = await h.connect(revision);
  });

  it("negotiates the revision and lists the package's tools in declared order", async () => {
    expect(client.getNegotiatedProtocolVersion?.() ?? revision).toBe(revision);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(EXAMPLE_TOOLS);
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName.customer_history?.inputSchema.required).toEqual(["customer", "question"]);
    expect(byName.customer_history?.annotations).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    expect(byName.log_event?.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: false });
    for (const tool of tools) expect(tool.outputSchema?.type).toBe("object");
  });

  it("tools/list equals GET /tools (same schemas and descriptions)", async () => {
    const { tools } = await client.listTools();
    const discovery = (await h.test.app.inject({ url: "/tools", headers: h.headers })).json();
    expect(
      tools.map((t) => ({
        name: t.name,
        description: t.description,
        input: t.inputSchema,
        output: t.outputSchema,
      })),
    ).toEqual(
      discovery.tools.map((t: Record<string, unknown>) => ({
        name: t.name,
        description: t.description,
        input: t.input_schema,
        output: t.output_schema,
      })),
    );
  });

  it("view tool: the view response, text and structuredContent alike", async () => {
    const result = await client.callTool({
      name: "customer_history",
      arguments: { customer: "acme", question: "invoice charged" },
    });
    expect(result.isError ?? false).toBe(false);
    const body = payload(result);
    expect(result.structuredContent).toEqual(body);
    expect(body.view).toMatchObject({ name: "customer_history", version: 1 });
    expect(body.parameters).toEqual({ customer: "acme", question: "invoice charged", limit: 10 });
    expect(body.hits.length).toBeGreaterThan(0);
    expect(JSON.stringify(body)).not.toContain("secret of other");
  });

  it("view tool equals POST /views/{name}/query", async () => {
    const args = { customer: "acme", question: "invoice charged", limit: 3 };
    const result = await client.callTool({ name: "customer_history", arguments: args });
    const rest = await post("/views/customer_history/query", args);
    expect(payload(result).input_record_ids).toEqual(rest.input_record_ids);
  });

  it("artifact tool: the render and its manifest", async () => {
    const result = await client.callTool({
      name: "support_brief",
      arguments: { customer: "acme", question: "billing" },
    });
    const body = payload(result);
    expect(body.content).toContain("You are helping customer acme with: billing");
    expect(body.manifest.artifact).toMatchObject({ name: "support_brief", version: 1 });
    expect(body.manifest.package).toMatchObject({ name: "support", version: "1.0.0" });
  });

  it("record tool: the full record; another workspace's id is not found", async () => {
    const ingest = await client.callTool({
      name: "log_event",
      arguments: { entity: "acme", type: "call", text: "Called about the refund" },
    });
    const { id } = payload(ingest);
    const read = payload(await client.callTool({ name: "get_record", arguments: { id } }));
    expect(read).toMatchObject({
      id,
      collection: "customer_events",
      entity: "acme",
      text: "Called about the refund",
    });

    const foreign = await client.callTool({ name: "get_record", arguments: { id: otherRecord } });
    expect(foreign.isError).toBe(true);
    expect(payload(foreign)).toMatchObject({ status: 404, code: "not_found" });
  });

  it("arguments cannot select a workspace", async () => {
    const result = await client.callTool({
      name: "get_record",
      arguments: { id: otherRecord, workspace: "other", api_key: otherKey },
    });
    expect(result.isError).toBe(true);
    expect(payload(result)).toMatchObject({ code: "request_schema" });
    expect(JSON.stringify(result)).not.toContain(otherKey);
  });

  it("ingest: the declared collection; a collection argument is discarded", async () => {
    const result = await client.callTool({
      name: "log_event",
      arguments: { collection: "customer_facts", entity: "acme", type: "chat", text: "Chat about plans" },
    });
    const body = payload(result);
    expect(body).toEqual({ id: expect.any(String), ready: expect.any(Boolean), duplicate: false });
    const stored = await h.test.app.inject({ url: `/records/${body.id}`, headers: h.headers });
    expect(stored.json().collection).toBe("customer_events");
  });

  it("ingest: a repeated dedupe_key returns the original id; another payload is an isError conflict", async () => {
    const args = {
      entity: "acme",
      type: "email",
      text: `Sent invoice ${revision}`,
      dedupe_key: `mail-${revision}`,
    };
    const first = payload(await client.callTool({ name: "log_event", arguments: args }));
    const again = payload(await client.callTool({ name: "log_event", arguments: args }));
    expect(again).toEqual({ id: first.id, ready: expect.any(Boolean), duplicate: true });
    const conflict = await client.callTool({ name: "log_event", arguments: { ...args, text: "other" } });
    expect(conflict.isError).toBe(true);
    expect(payload(conflict)).toMatchObject({ status: 409, code: "dedupe_conflict" });
  });

  it("ingest: derived_from, scores, status and tombstone are not the agent's to set", async () => {
    for (const extra of [
      { derived_from: [otherRecord] },
      { scores: { urgency: 1 } },
      { status: "draft" },
      { tombstone: true },
    ]) {
      const result = await client.callTool({
        name: "log_event",
        arguments: { entity: "acme", type: "note", text: "x", ...extra },
      });
      expect(result.isError, JSON.stringify(extra)).toBe(true);
      expect(payload(result).code).toBe("request_schema");
    }
  });

  it("invalid arguments are an isError result listing every problem", async () => {
    const result = await client.callTool({ name: "customer_history", arguments: { customer: 5, limit: 0 } });
    expect(result.isError).toBe(true);
    const problem = payload(result);
    expect(problem).toMatchObject({ status: 422, code: "request_schema" });
    expect(problem.errors.map((e: { path: string }) => e.path).sort()).toEqual([
      "customer",
      "limit",
      "question",
    ]);
  });

  it("an unknown tool is a protocol error", async () => {
    await expect(client.callTool({ name: "no_such_tool", arguments: {} })).rejects.toThrow(/unknown tool/);
  });

  it("the key never appears in tool content", async () => {
    const results = await Promise.all([
      client.callTool({ name: "customer_history", arguments: { customer: "acme", question: "plan" } }),
      client.callTool({ name: "get_record", arguments: { id: "not-a-uuid" } }),
    ]);
    for (const result of results) expect(JSON.stringify(result)).not.toContain(h.key);
  });
});
