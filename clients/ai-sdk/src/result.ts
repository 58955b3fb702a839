// An MCP tool result as an AI SDK tool's outcome. Success is the result's structuredContent (or
// its text); a refusal (isError, content = Engram's problem details) is thrown as an EngramError:
// the AI SDK turns an error thrown by execute into a tool-error part, shows the model its message
// as the call's error result, and goes on to the next step, so the model can correct the call.

import { EngramError, type Problem } from "@engram/client";
import type { CallToolResult } from "@modelcontextprotocol/client";

function text(result: CallToolResult): string {
  return result.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n");
}

function problemIn(body: string): Problem | undefined {
  try {
    const value = JSON.parse(body) as Partial<Problem> | null;
    return typeof value?.code === "string" && typeof value.status === "number"
      ? (value as Problem)
      : undefined;
  } catch {
    return undefined;
  }
}

export function toolOutput(name: string, result: CallToolResult): unknown {
  if (result.isError) {
    const body = text(result);
    const problem = problemIn(body);
    throw problem ? new EngramError(problem) : new Error(`tool ${name} failed: ${body}`);
  }
  return result.structuredContent ?? text(result);
}
