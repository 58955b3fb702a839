// The official MCP client on Engram's POST /mcp (Streamable HTTP). Requests go through
// engram.fetch, so the bearer key and any fetch the caller gave the Engram object apply here too.

import type { Engram } from "@engram/client";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

/** How this package introduces itself to the server (MCP clientInfo). */
const CLIENT_INFO = { name: "@engram/ai-sdk", version: "0.1.0" };

export async function connectMcp(engram: Engram, signal?: AbortSignal): Promise<Client> {
  // "auto": the stateless 2026-07-28 revision Engram serves, or the 2025 initialize handshake
  // with a server that predates it.
  const client = new Client(CLIENT_INFO, { versionNegotiation: { mode: "auto" } });
  const transport = new StreamableHTTPClientTransport(new URL(`${engram.url}/mcp`), {
    fetch: engram.fetch,
  });
  await client.connect(transport, { signal });
  return client;
}
