// One MCP server instance per request (stateless): the workspace's current tools and, once a
// catalog is published, its resources (entity documents, resources.ts) and prompts (active
// artifacts, prompts.ts). No sampling, roots, logging, subscriptions, completions or
// server-initiated requests (docs/api.md "POST /mcp").
import {
  type CallToolResult,
  createMcpHandler,
  type McpHttpHandler,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  SUPPORTED_PROTOCOL_VERSIONS,
  type Tool,
} from "@modelcontextprotocol/server";
import type { InstalledCatalog } from "../catalog/index.js";
import { problemBody } from "../contract/index.js";
import { AppError } from "../platform/errors.js";
import type { Workspace } from "../platform/workspace.js";
import { VERSION } from "../version.js";
import { runTool, type ToolDeps } from "./call.js";
import { catalogPrompts, getPrompt } from "./prompts.js";
import { refusalsAsErrors } from "./refusals.js";
import { DOCUMENT_TEMPLATE, NO_RESOURCES, readResource } from "./resources.js";
import { catalogTools, keyTools, type ToolDescriptor } from "./tools.js";

/** Protocol revisions served: the current one, and earlier ones through initialize. */
export const MODERN_REVISION = "2026-07-28";
export const SUPPORTED_REVISIONS: readonly string[] = [MODERN_REVISION, ...SUPPORTED_PROTOCOL_VERSIONS];

/** What a request brings: who is asking and the catalog in force for this request. */
export interface ToolScope {
  workspace: Workspace;
  /** undefined before the first publish: the server then lists no tools, resources or prompts. */
  catalog: InstalledCatalog | undefined;
  /** A read-only key: tools that write are neither listed nor run (resources and prompts only read). */
  readOnly: boolean;
}

export interface ServerDeps extends ToolDeps {
  /** Unexpected failures (bugs, not refusals); reported, never shown to the client. */
  onInternalError: (error: unknown) => void;
}

/**
 * A call still running after this long reports progress to a client that asked for it (a
 * progressToken): the first notification turns the reply into a request-scoped SSE stream.
 */
export const PROGRESS_INTERVAL_MS = 1000;

/** Progress notifications every interval until `done` settles; no token, no notifications. */
async function withProgress<T>(
  token: string | number | undefined,
  notify: (notification: { method: string; params: Record<string, unknown> }) => Promise<void>,
  done: Promise<T>,
): Promise<T> {
  if (token === undefined) return done;
  let progress = 0;
  const timer = setInterval(() => {
    progress += 1;
    notify({ method: "notifications/progress", params: { progressToken: token, progress } }).catch(() => {});
  }, PROGRESS_INTERVAL_MS);
  try {
    return await done;
  } finally {
    clearInterval(timer);
  }
}

/** A descriptor as tools/list shows it. */
export function mcpTool(tool: ToolDescriptor): Tool {
  return {
    name: tool.name,
    ...(tool.title ? { title: tool.title } : {}),
    description: tool.description,
    inputSchema: tool.input_schema as Tool["inputSchema"],
    outputSchema: tool.output_schema as Tool["outputSchema"],
    annotations: { ...(tool.title ? { title: tool.title } : {}), ...tool.annotations },
  };
}

/** A refusal as the tool result an agent can read and act on. */
function refusal(error: AppError): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(problemBody(error)) }], isError: true };
}

async function callTool(deps: ServerDeps, scope: ToolScope, name: string, args: unknown) {
  // Re-authorized on every call: only a tool of the catalog in force now can run.
  const tool = scope.catalog && catalogTools(scope.catalog).find((t) => t.name === name);
  if (!scope.catalog || !tool) {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `unknown tool: ${name}`);
  }
  try {
    if (scope.readOnly && !tool.annotations.readOnlyHint) {
      throw new AppError("key_read_only", `this key is read-only: tool ${name} writes`);
    }
    const result = await runTool(deps, {
      workspace: scope.workspace,
      catalog: scope.catalog,
      tool,
      args: (args ?? {}) as Record<string, unknown>,
    });
    const text = JSON.stringify(result);
    return { content: [{ type: "text", text }], structuredContent: JSON.parse(text) } as CallToolResult;
  } catch (error) {
    if (error instanceof AppError && error.code !== "internal") return refusal(error);
    deps.onInternalError(error);
    throw new ProtocolError(ProtocolErrorCode.InternalError, "internal error");
  }
}

/** Resources and prompts exist once a catalog is published; a read-only key reads both. */
function offerCatalog(
  server: Server,
  deps: ServerDeps,
  workspace: Workspace,
  catalog: InstalledCatalog,
): void {
  const refusing = <T>(work: () => Promise<T>) => refusalsAsErrors(deps.onInternalError, work);
  server.setRequestHandler("resources/list", () => NO_RESOURCES);
  server.setRequestHandler("resources/templates/list", () => ({ resourceTemplates: [DOCUMENT_TEMPLATE] }));
  server.setRequestHandler("resources/read", (request) =>
    refusing(() => readResource(deps, { workspace, uri: request.params.uri })),
  );
  server.setRequestHandler("prompts/list", () => catalogPrompts(catalog));
  server.setRequestHandler("prompts/get", (request, ctx) =>
    withProgress(
      request.params._meta?.progressToken,
      ctx.mcpReq.notify,
      refusing(() =>
        getPrompt(deps, { workspace, catalog, name: request.params.name, args: request.params.arguments }),
      ),
    ),
  );
}

/** The server instance for one request (HTTP) or one connection. */
export function toolServer(deps: ServerDeps, scope: ToolScope): Server {
  const { catalog } = scope;
  const mcp = catalog?.index.mcp?.def;
  const listed = { listChanged: false };
  const server = new Server(
    { name: mcp?.name ?? "engram", title: mcp?.title ?? "Engram", version: VERSION },
    {
      capabilities: { tools: listed, ...(catalog ? { resources: listed, prompts: listed } : {}) },
      ...(mcp?.instructions ? { instructions: mcp.instructions } : {}),
    },
  );
  const tools = catalog ? keyTools(catalog, scope.readOnly) : [];
  server.setRequestHandler("tools/list", () => ({ tools: tools.map(mcpTool) }));
  server.setRequestHandler("tools/call", (request, ctx) =>
    withProgress(
      request.params._meta?.progressToken,
      ctx.mcpReq.notify,
      callTool(deps, scope, request.params.name, request.params.arguments),
    ),
  );
  if (catalog) offerCatalog(server, deps, scope.workspace, catalog);
  return server;
}

/**
 * The most JSON-RPC messages one POST /mcp may carry (docs/api.md "MCP"); each is charged to the
 * key's rate limit as a request of its own.
 */
export const MCP_BATCH_MAX = 100;

/** The JSON-RPC messages a POST /mcp body carries: a batch's length, else one. */
export function messageCount(body: unknown): number {
  return Array.isArray(body) ? body.length : 1;
}

/** The JSON-RPC error answering (with 400) a batch past MCP_BATCH_MAX: none of it runs. */
export function oversizedBatch(messages: number) {
  return {
    jsonrpc: "2.0",
    id: null,
    error: {
      code: -32600,
      message: `Invalid Request: a batch holds at most ${MCP_BATCH_MAX} messages, this one ${messages}`,
    },
  } as const;
}

/** The Streamable HTTP handler of POST /mcp; each request passes its scope as authInfo.extra. */
export function toolHandler(deps: ServerDeps): McpHttpHandler {
  return createMcpHandler(({ authInfo }) => toolServer(deps, authInfo?.extra?.scope as ToolScope), {
    legacy: "stateless",
    onerror: () => {},
  });
}
