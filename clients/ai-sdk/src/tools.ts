// The workspace's MCP tools as AI SDK tools: each keeps its MCP name, description, title and input
// schema (the JSON Schema the model is given), and runs as a tools/call on Engram's POST /mcp.
import { Engram, type EngramOptions } from "@engram/client";
import type { Client, Tool as McpTool } from "@modelcontextprotocol/client";
import { jsonSchema, type Tool, type ToolSet, tool } from "ai";
import { connectMcp } from "./connect.js";
import { toolOutput } from "./result.js";
import { selectTools, type ToolKind, type ToolSelection } from "./select.js";

type JsonSchema = Parameters<typeof jsonSchema>[0];

export interface EngramToolsOptions extends ToolSelection {
  /** Cancels connecting and listing the tools. */
  signal?: AbortSignal;
}

/** The tools and the MCP connection they run on; close() it when the agent is done. */
export interface EngramTools {
  /** For generateText / streamText / agents: `tools: memory.tools`. */
  tools: ToolSet;
  /** The workspace interface's instructions for agents (a system prompt line), if it has any. */
  instructions: string | undefined;
  /** Closes the MCP connection; the tools cannot run after it. */
  close(): Promise<void>;
}

/** An Engram client, or the options to build one ({ url, key, ... }). */
export type EngramSource = Engram | EngramOptions;

function aiTool(client: Client, listed: McpTool): Tool {
  return tool({
    title: listed.title,
    description: listed.description,
    inputSchema: jsonSchema<Record<string, unknown>>(listed.inputSchema as JsonSchema),
    outputSchema: listed.outputSchema && jsonSchema(listed.outputSchema as JsonSchema),
    execute: async (input, { abortSignal }) => {
      const result = await client.callTool(
        { name: listed.name, arguments: input },
        // Asking for progress keeps a long call (an answer waits on a model) alive past the
        // request timeout: the server reports progress every second while it works.
        { signal: abortSignal, onprogress: () => {}, resetTimeoutOnProgress: true },
      );
      return toolOutput(listed.name, result);
    },
  });
}

async function toolKinds(engram: Engram, signal?: AbortSignal): Promise<Map<string, ToolKind>> {
  const { tools } = await engram.tools({ signal });
  return new Map(tools.map((descriptor) => [descriptor.name, descriptor.kind]));
}

/**
 * Connects to the workspace's MCP endpoint and returns its tools (all those the key sees, or the
 * selection) as AI SDK tools. A read-only key sees, and so gets, only tools that do not write.
 */
export async function engramTools(
  source: EngramSource,
  options: EngramToolsOptions = {},
): Promise<EngramTools> {
  const engram = source instanceof Engram ? source : new Engram(source);
  const { signal } = options;
  const client = await connectMcp(engram, signal);
  try {
    const { tools: listed } = await client.listTools(undefined, { signal });
    const chosen = await selectTools(listed, options, () => toolKinds(engram, signal));
    return {
      tools: Object.fromEntries(chosen.map((listedTool) => [listedTool.name, aiTool(client, listedTool)])),
      instructions: client.getInstructions(),
      close: () => client.close(),
    };
  } catch (error) {
    await client.close();
    throw error;
  }
}
