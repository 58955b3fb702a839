// The local stdio adapter (`engram mcp`): an MCP server on stdin/stdout whose every request is
// forwarded to POST /mcp of an Engram API, so it serves exactly the tools (and the resources and
// prompts, when the API offers them) the workspace's key sees there, re-authorized on every
// call. Only protocol messages go to stdout.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Server } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { VERSION } from "../version.js";
import { MODERN_REVISION } from "./server.js";

export interface ApiTarget {
  url: string;
  key: string;
}

/** A client of the API's POST /mcp at the current revision, authenticated by the key. */
export async function connectUpstream(target: ApiTarget): Promise<Client> {
  const client = new Client(
    { name: "engram-mcp-stdio", version: VERSION },
    { versionNegotiation: { mode: { pin: MODERN_REVISION } } },
  );
  const transport = new StreamableHTTPClientTransport(new URL("/mcp", `${target.url}/`), {
    requestInit: { headers: { authorization: `Bearer ${target.key}` } },
  });
  await client.connect(transport);
  return client;
}

/**
 * A local server that answers from the upstream API: tools always, resources and prompts when
 * the upstream advertised them when the adapter connected (a workspace with a published catalog).
 */
function proxyServer(upstream: Client): Server {
  const info = upstream.getServerVersion();
  const instructions = upstream.getInstructions();
  const offered = upstream.getServerCapabilities();
  const listed = { listChanged: false };
  const server = new Server(
    { name: info?.name ?? "engram", ...(info?.title ? { title: info.title } : {}), version: VERSION },
    {
      capabilities: {
        tools: listed,
        ...(offered?.resources ? { resources: listed } : {}),
        ...(offered?.prompts ? { prompts: listed } : {}),
      },
      ...(instructions ? { instructions } : {}),
    },
  );
  server.setRequestHandler("tools/list", (request) => upstream.listTools(request.params));
  server.setRequestHandler("tools/call", (request) => upstream.callTool(request.params));
  if (offered?.resources) {
    server.setRequestHandler("resources/list", (request) => upstream.listResources(request.params));
    server.setRequestHandler("resources/templates/list", (request) =>
      upstream.listResourceTemplates(request.params),
    );
    server.setRequestHandler("resources/read", (request) => upstream.readResource(request.params));
  }
  if (offered?.prompts) {
    server.setRequestHandler("prompts/list", (request) => upstream.listPrompts(request.params));
    server.setRequestHandler("prompts/get", (request) => upstream.getPrompt(request.params));
  }
  return server;
}

/** Serves until stdin closes; diagnostics go to `report` (stderr), never to stdout. */
export async function serveStdioAdapter(target: ApiTarget, report: (message: string) => void): Promise<void> {
  const upstream = await connectUpstream(target);
  await new Promise<void>((resolve) => {
    const handle = serveStdio(() => proxyServer(upstream), {
      onerror: (error) => report(`engram mcp: ${error.message}`),
    });
    process.stdin.once("end", () => {
      void handle.close().finally(resolve);
    });
  });
  await upstream.close();
}
