// A read-only key: the server lists no tool that writes, so the agent is given none, cannot ask for
// one by name, and the reading tools still run. (An Engram app on a real port rather than `engram
// serve`: a read-only key is made in the database, which embedded storage does not share.)
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertKey } from "../../../src/workspaces/index.js";
import { EXAMPLE_TOOLS, type McpHarness, mcpHarness } from "../../../test/support/mcp.js";
import { type EngramTools, engramTools, TOOL_ROLES } from "../src/index.js";

let h: McpHarness;
let readOnly: { url: string; key: string };
let reader: EngramTools;

beforeAll(async () => {
  h = await mcpHarness();
  const key = await insertKey(h.test.db, { id: h.workspaceId, name: "agents" }, { scope: "read_only" });
  readOnly = { url: h.url, key: key.api_key };
  reader = await engramTools(readOnly);
});
afterAll(async () => {
  await reader?.close();
  await h?.close();
});

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

describe("engramTools with a read-only key", () => {
  it("gets every tool but the one that writes, which the read-write key gets", async () => {
    expect(Object.keys(reader.tools)).toEqual(EXAMPLE_TOOLS.filter((name) => name !== "log_event"));
    const writer = await engramTools({ url: h.url, key: h.key });
    try {
      expect(Object.keys(writer.tools)).toEqual(EXAMPLE_TOOLS);
    } finally {
      await writer.close();
    }
  });

  it("asking for the writing tool by name is an error that says why", async () => {
    await expect(engramTools(readOnly, { names: ["log_event"] })).rejects.toThrow(
      /no tool log_event for this key.*a read-only key does not see tools that write/,
    );
  });

  it("asking for the remember role gives no tools", async () => {
    const remember = await engramTools(readOnly, { kinds: [...TOOL_ROLES.remember] });
    try {
      expect(remember.tools).toEqual({});
    } finally {
      await remember.close();
    }
  });

  it("the reading tools run in generateText", async () => {
    const replies = [
      {
        content: [
          {
            type: "tool-call" as const,
            toolCallId: "call-1",
            toolName: "customer_history",
            input: JSON.stringify({ customer: "acme", question: "invoice" }),
          },
        ],
        finishReason: { unified: "tool-calls" as const, raw: undefined },
        usage,
        warnings: [],
      },
      {
        content: [{ type: "text" as const, text: "done" }],
        finishReason: { unified: "stop" as const, raw: undefined },
        usage,
        warnings: [],
      },
    ];
    const model = new MockLanguageModelV3({ doGenerate: replies });
    const result = await generateText({
      model,
      tools: reader.tools,
      prompt: "history",
      stopWhen: stepCountIs(3),
    });
    const [history] = result.steps[0]?.toolResults ?? [];
    expect(history?.output).toMatchObject({
      view: { name: "customer_history", version: 1 },
      parameters: { customer: "acme", question: "invoice", limit: 10 },
    });
    expect(result.text).toBe("done");
  });
});
