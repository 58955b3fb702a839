import { Readable } from "node:stream";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { activeCatalog, requireCatalog } from "../../catalog/index.js";
import type { ToolDeps } from "../../mcp/call.js";
import { TOOLS_DISCOVERY_SCHEMA, toolsDiscovery } from "../../mcp/discovery.js";
import { type ToolScope, toolHandler } from "../../mcp/server.js";

// Never handed to the MCP layer: the key stays in the authentication hook.
const WITHHELD_HEADERS = new Set(["authorization", "cookie", "proxy-authorization"]);

/** The Fastify request as the web Request the SDK serves (body already parsed by Fastify). */
function webRequest(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || WITHHELD_HEADERS.has(name)) continue;
    for (const item of [value].flat()) headers.append(name, item);
  }
  return new Request(new URL(request.url, "http://engram.local"), { method: request.method, headers });
}

async function sendWeb(reply: FastifyReply, response: Response): Promise<FastifyReply> {
  reply.code(response.status);
  response.headers.forEach((value, name) => {
    reply.header(name, value);
  });
  if (!response.body) return reply.send();
  if (response.headers.get("content-type")?.startsWith("text/event-stream")) {
    return reply.send(Readable.fromWeb(response.body as never));
  }
  return reply.send(await response.text());
}

const jsonRpc = { type: "object", additionalProperties: true } as const;

/** GET /tools and POST /mcp (spec "Agent tool endpoint"); the Origin rule runs in origins.ts. */
export function mcpRoutes(app: FastifyInstance, deps: ToolDeps): void {
  const handler = toolHandler({
    ...deps,
    onInternalError: (error) => app.log.error({ err: error }, "MCP tool call failed"),
  });
  app.addHook("onClose", () => handler.close());
  app.get(
    "/tools",
    {
      schema: {
        summary: "The workspace's agent tools: package, interface, input and output schemas",
        tags: ["discovery"],
        response: { 200: TOOLS_DISCOVERY_SCHEMA },
      },
    },
    async (request) =>
      toolsDiscovery(await requireCatalog(deps.db, request.workspace.id), request.key.scope === "read_only"),
  );
  app.post<{ Body: unknown }>(
    "/mcp",
    {
      // Each tool decides: read-only keys neither see nor run ingest tools (src/mcp/server.ts).
      config: { reads: true },
      schema: {
        summary: "MCP Streamable HTTP (2026-07-28 stateless, and 2025 revisions through initialize)",
        tags: ["mcp"],
        body: { description: "a JSON-RPC 2.0 request or notification" },
        response: {
          200: { description: "JSON-RPC response, or a request-scoped text/event-stream", ...jsonRpc },
          202: { description: "notification accepted", type: "null" },
          400: { description: "JSON-RPC error: header or protocol-version mismatch", ...jsonRpc },
          406: {
            description: "JSON-RPC error: Accept lacks application/json or text/event-stream",
            ...jsonRpc,
          },
          415: { description: "JSON-RPC error: Content-Type is not application/json", ...jsonRpc },
        },
      },
    },
    async (request, reply) => {
      const scope: ToolScope = {
        workspace: request.workspace,
        catalog: await activeCatalog(deps.db, request.workspace.id),
        readOnly: request.key.scope === "read_only",
      };
      const response = await handler.fetch(webRequest(request), {
        parsedBody: request.body,
        authInfo: { token: "", clientId: request.workspace.name, scopes: [], extra: { scope } },
      });
      return sendWeb(reply, response);
    },
  );
}
