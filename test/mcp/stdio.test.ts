// `engram mcp`: the stdio adapter as a child process against a listening API, driven by the
// official client (both revisions: tools, resources and prompts) and by hand to check that stdout
// carries only JSON-RPC.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliEnv, ENGRAM_BIN, runCli } from "../support/cli.js";
import { EXAMPLE_TOOLS, type McpHarness, mcpHarness, REVISIONS, type Revision } from "../support/mcp.js";

let h: McpHarness;
let env: Record<string, string>;

beforeAll(async () => {
  h = await mcpHarness();
  env = cliEnv({ ENGRAM_API_URL: h.url, ENGRAM_API_KEY: h.key }) as Record<string, string>;
});
afterAll(() => h.close());

/** The official client connected to a spawned `engram mcp` at `revision`. */
async function stdioClient(revision: Revision): Promise<Client> {
  const client = new Client(
    { name: "stdio-test", version: "1" },
    revision === "2026-07-28" ? { versionNegotiation: { mode: { pin: revision } } } : {},
  );
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [ENGRAM_BIN, "mcp"], env, stderr: "pipe" }),
  );
  return client;
}

describe.each(REVISIONS)("engram mcp with the official client at %s", (revision) => {
  it("lists and calls the workspace's tools", async () => {
    const client = await stdioClient(revision);
    try {
      expect(client.getNegotiatedProtocolVersion?.() ?? revision).toBe(revision);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(EXAMPLE_TOOLS);
      const written = await client.callTool({
        name: "log_event",
        arguments: { entity: "acme", type: "call", text: `over stdio ${revision}` },
      });
      const { id } = written.structuredContent as { id: string };
      const read = await client.callTool({ name: "get_record", arguments: { id } });
      expect(read.structuredContent).toMatchObject({ id, text: `over stdio ${revision}` });
      const refused = await client.callTool({ name: "get_record", arguments: { id: "nope" } });
      expect(refused.isError).toBe(true);
    } finally {
      await client.close();
    }
  });

  it("forwards the workspace's resources and prompts", async () => {
    await h.test.writeRecords(h.headers, [
      {
        collection: "customer_facts",
        entity: "stdio-co",
        type: "fact",
        key: "plan",
        text: `Plan ${revision}`,
      },
    ]);
    const client = await stdioClient(revision);
    try {
      expect(client.getServerCapabilities()).toMatchObject({ resources: {}, prompts: {} });
      const { resourceTemplates } = await client.listResourceTemplates();
      expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(["engram://document/{entity}"]);
      const { contents } = await client.readResource({ uri: "engram://document/stdio-co" });
      const document = await h.test.app.inject({ url: "/document?entity=stdio-co", headers: h.headers });
      expect(contents).toEqual([
        { uri: "engram://document/stdio-co", mimeType: "application/json", text: document.body },
      ]);
      expect(document.body).toContain(`Plan ${revision}`);
      const { prompts } = await client.listPrompts();
      expect(prompts.map((p) => p.name)).toEqual(["support_brief"]);
      const args = { customer: "stdio-co", question: "billing" };
      const { messages } = await client.getPrompt({ name: "support_brief", arguments: args });
      const render = await h.test.app.inject({
        method: "POST",
        url: "/artifacts/support_brief/render",
        headers: h.headers,
        payload: args,
      });
      expect(messages).toEqual([{ role: "user", content: { type: "text", text: render.json().content } }]);
      await expect(client.getPrompt({ name: "support_brief", arguments: {} })).rejects.toThrow(
        /customer: is required/,
      );
    } finally {
      await client.close();
    }
  });
});

it("writes nothing but JSON-RPC messages on stdout", async () => {
  const child = spawn(process.execPath, [ENGRAM_BIN, "mcp"], { env, stdio: ["pipe", "pipe", "pipe"] });
  const lines: string[] = [];
  const replies = new Map<number, (message: Record<string, unknown>) => void>();
  createInterface({ input: child.stdout }).on("line", (line) => {
    lines.push(line);
    const message = JSON.parse(line);
    replies.get(message.id)?.(message);
  });
  const request = (id: number, method: string, params: object) =>
    new Promise<Record<string, unknown>>((resolve) => {
      replies.set(id, resolve);
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    });
  await request(1, "initialize", {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "raw", version: "1" },
  });
  child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
  const listed = await request(2, "tools/list", {});
  const called = await request(3, "tools/call", { name: "get_record", arguments: { id: "nope" } });
  child.stdin.end();
  const code = await new Promise((resolve) => child.on("close", resolve));
  expect(code).toBe(0);
  expect((listed.result as { tools: unknown[] }).tools).toHaveLength(5);
  expect((called.result as { isError: boolean }).isError).toBe(true);
  expect(lines).toHaveLength(3);
  for (const line of lines) {
    expect(JSON.parse(line).jsonrpc).toBe("2.0");
    expect(line).not.toContain(h.key);
  }
});

describe("engram mcp --check", () => {
  it("prints package, interface, tools and revisions without an MCP connection", async () => {
    const { code, stdout } = await runCli(["mcp", "--check"], env);
    expect(code).toBe(0);
    expect(stdout).toContain("package: support@1.0.0");
    expect(stdout).toContain("interface: support_tools@1");
    expect(stdout).toContain("customer_history (view customer_history@1)");
    expect(stdout).toContain("get_record (record)");
    expect(stdout).toContain("ask_memory (answer)");
    expect(stdout).toMatch(/protocol revisions: 2026-07-28, 2025-11-25/);
    expect(stdout).not.toContain(h.key);
  });

  it("exits 1 with the refusal on stderr for a wrong key", async () => {
    const { code, stdout, stderr } = await runCli(["mcp", "--check"], {
      ...env,
      ENGRAM_API_KEY: "egk_wrong",
    });
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toContain("401");
  });

  it("exits 1 naming the URL when no server answers there, with and without --check", async () => {
    const nowhere = { ...env, ENGRAM_API_URL: "http://127.0.0.1:9" };
    for (const args of [["mcp"], ["mcp", "--check"]]) {
      const { code, stdout, stderr } = await runCli(args, nowhere);
      expect([args, code]).toEqual([args, 1]);
      expect(stdout).toBe("");
      expect(stderr).toContain("http://127.0.0.1:9");
    }
  });
});
