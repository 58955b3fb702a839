// MCP with a read-only key: tools/list shows only tools that do not write, and an ingest tool
// called by name anyway is refused as a tool result (isError, 403 key_read_only), writing nothing.
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertKey } from "../../src/workspaces/index.js";
import { EXAMPLE_TOOLS, type McpHarness, mcpHarness, REVISIONS } from "../support/mcp.js";

let h: McpHarness;
let readOnlyKey: string;
beforeAll(async () => {
  h = await mcpHarness();
  const key = await insertKey(h.test.db, { id: h.workspaceId, name: "agents" }, { scope: "read_only" });
  readOnlyKey = key.api_key;
});
afterAll(() => h.close());

const events = async () =>
  (await h.test.app.inject({ url: "/timeline?entity=ro-probe", headers: h.headers })).json().records;

describe.each(REVISIONS)("MCP at %s with a read-only key", (revision) => {
  let reader: Client;
  let writer: Client;
  beforeAll(async () => {
    reader = await h.connect(revision, readOnlyKey);
    writer = await h.connect(revision);
  });

  it("tools/list omits the ingest tool, which the read-write key sees", async () => {
    expect((await writer.listTools()).tools.map((tool) => tool.name)).toEqual(EXAMPLE_TOOLS);
    const listed = (await reader.listTools()).tools;
    expect(listed.map((tool) => tool.name)).toEqual(EXAMPLE_TOOLS.filter((name) => name !== "log_event"));
    for (const tool of listed) expect(tool.annotations?.readOnlyHint).toBe(true);
  });

  it("calling the ingest tool is an isError result with key_read_only, and writes nothing", async () => {
    const result = await reader.callTool({
      name: "log_event",
      arguments: { entity: "ro-probe", type: "call", text: "should not be kept" },
    });
    expect(result.isError).toBe(true);
    const [content] = result.content as { type: string; text: string }[];
    expect(JSON.parse(content?.text as string)).toMatchObject({ status: 403, code: "key_read_only" });
    expect(await events()).toEqual([]);
  });

  it("reading tools run", async () => {
    const result = await reader.callTool({
      name: "customer_history",
      arguments: { customer: "ro-probe", question: "anything" },
    });
    expect(result.isError ?? false).toBe(false);
  });
});
