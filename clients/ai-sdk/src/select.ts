// Which of the workspace's tools an agent gets: all that the key sees, or those named and those of
// the chosen kinds. The kind of a tool (view, artifact, answer, record, ingest, retract) is in
// GET /tools, not in the MCP listing, so it is read only when kinds are asked for.
import type { Engram } from "@engram/client";
import type { Tool as McpTool } from "@modelcontextprotocol/client";

export type ToolKind = Awaited<ReturnType<Engram["tools"]>>["tools"][number]["kind"];

export interface ToolSelection {
  /** MCP tool names; each must be a tool the key sees (an unknown name is an error). */
  names?: string[];
  /** Tool kinds; every tool of these kinds (possibly none). */
  kinds?: ToolKind[];
}

/** The kinds behind the roles: what an agent remembers with, recalls with, asks. */
export const TOOL_ROLES = {
  remember: ["ingest"],
  recall: ["view", "artifact", "record"],
  answer: ["answer"],
  forget: ["retract"],
} as const satisfies Record<string, readonly ToolKind[]>;

/** A tool is chosen when it is named or of a chosen kind; with neither option, all are. */
export async function selectTools(
  listed: McpTool[],
  selection: ToolSelection,
  kinds: () => Promise<Map<string, ToolKind>>,
): Promise<McpTool[]> {
  const { names, kinds: wanted } = selection;
  if (!names && !wanted) return listed;
  const missing = (names ?? []).filter((name) => !listed.some((tool) => tool.name === name));
  if (missing.length > 0) {
    throw new Error(
      `no tool ${missing.join(", ")} for this key; it sees ${listed.map((tool) => tool.name).join(", ") || "none"} ` +
        "(a read-only key does not see tools that write)",
    );
  }
  const kindOf = wanted ? await kinds() : new Map<string, ToolKind>();
  return listed.filter((tool) => {
    const kind = kindOf.get(tool.name);
    return names?.includes(tool.name) || (kind !== undefined && wanted?.includes(kind));
  });
}
