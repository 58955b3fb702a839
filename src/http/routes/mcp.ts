// The mounting point of the MCP shell (src/mcp): GET /tools and POST /mcp of src/contract/tools.ts,
// the Fastify request handed to the SDK's web handler and its Response written back.
import { Readable } from "node:stream";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { activeCatalog, requireCatalog } from "../../catalog/index.js";
import { MCP, TOOLS } from "../../contract/index.js";
import {
  MCP_BATCH_MAX,
  messageCount,
  oversizedBatch,
  type ToolDeps,
  type ToolScope,
  toolHandler,
  toolsDiscovery,
} from "../../mcp/index.js";
import { contractRoute } from "../contract-route.js";
import { chargeMessages } from "../rate-limit.js";

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

/** GET /tools and POST /mcp (docs/api.md "MCP"); the Origin rule runs in origins.ts. */
export function mcpRoutes(app: FastifyInstance, deps: ToolDeps): void {
  const handler = toolHandler({
    ...deps,
    onInternalError: (error) => app.log.error({ err: error }, "MCP tool call failed"),
  });
  app.addHook("onClose", () => handler.close());
  app.route({
    ...contractRoute(TOOLS),
    handler: async (request) =>
      toolsDiscovery(await requireCatalog(deps.db, request.workspace.id), request.key.scope === "read_only"),
  });
  app.route<{ Body: unknown }>({
    ...contractRoute(MCP),
    // Each tool decides: read-only keys neither see nor run ingest tools (src/mcp/server.ts).
    config: { reads: true },
    handler: async (request, reply) => {
      // A batch is as many requests as it holds messages: one POST cannot multiply a key's calls.
      const messages = messageCount(request.body);
      if (messages > MCP_BATCH_MAX) return reply.code(400).send(oversizedBatch(messages));
      await chargeMessages(app, request, reply, messages);
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
  });
}
