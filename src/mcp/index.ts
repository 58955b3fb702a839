// The MCP shell: the workspace's agent tools, entity documents (resources) and artifacts
// (prompts) served over MCP (POST /mcp, mounted by src/http/routes/mcp.ts), the tools' GET /tools
// envelope, and the local stdio adapter (`engram mcp`).
export type { ToolDeps } from "./call.js";
export { toolsDiscovery } from "./discovery.js";
export {
  MCP_BATCH_MAX,
  messageCount,
  oversizedBatch,
  SUPPORTED_REVISIONS,
  type ToolScope,
  toolHandler,
} from "./server.js";
export { type ApiTarget, serveStdioAdapter } from "./stdio.js";
