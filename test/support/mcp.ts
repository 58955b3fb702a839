// An Engram app listening on a real port with the example package published, and the official
// MCP client connected to it over Streamable HTTP at either protocol revision.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createTestApp, type TestApp } from "./app.js";

/** The example package's tools (examples/catalog/mcp), in declared order. */
export const EXAMPLE_TOOLS = ["customer_history", "support_brief", "ask_memory", "get_record", "log_event"];

export type Revision = "2026-07-28" | "2025-11-25";
export const REVISIONS: Revision[] = ["2026-07-28", "2025-11-25"];

export interface McpHarness {
  test: TestApp;
  /** http://127.0.0.1:port */
  url: string;
  /** The workspace of `key`. */
  workspaceId: string;
  key: string;
  headers: { authorization: string };
  connect(revision: Revision, key?: string): Promise<Client>;
  close(): Promise<void>;
}

/** The official client connected to the app listening at `url`, with a workspace key. */
export async function mcpClient(url: string, key: string, revision: Revision): Promise<Client> {
  const client = new Client(
    { name: "engram-test", version: "1.0.0" },
    revision === "2026-07-28" ? { versionNegotiation: { mode: { pin: revision } } } : {},
  );
  const transport = new StreamableHTTPClientTransport(new URL("/mcp", url), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  await client.connect(transport);
  return client;
}

/** `catalog`: a POST /catalog body to publish instead of the example package. */
export async function mcpHarness(
  env: Record<string, string> = {},
  catalog?: { package: string; files: Record<string, string> },
): Promise<McpHarness> {
  const test = await createTestApp({ env });
  const { id: workspaceId, key, headers } = await test.workspace("agents");
  if (catalog) {
    const res = await test.app.inject({ method: "POST", url: "/catalog", headers, payload: catalog });
    if (res.statusCode !== 200) throw new Error(`publishing failed: ${res.body}`);
  } else await test.publishExample(headers);
  const url = await test.app.listen({ port: 0, host: "127.0.0.1" });
  const clients: Client[] = [];
  return {
    test,
    url,
    workspaceId,
    key,
    headers,
    async connect(revision, withKey = key) {
      const client = await mcpClient(url, withKey, revision);
      clients.push(client);
      return client;
    },
    async close() {
      for (const client of clients) await client.close();
      await test.close();
    },
  };
}
