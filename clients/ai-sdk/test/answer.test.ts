// The answer role: a model asks Engram's answer tool, which waits on Engram's own model (the local
// OpenAI stub, slowed down so the server reports progress and replies on an event stream).
import { randomUUID } from "node:crypto";
import { Engram } from "@engram/client";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { afterAll, beforeAll, expect, it } from "vitest";
import { citing, stubCatalog } from "../../../test/support/answer-stub.js";
import { type McpHarness, mcpHarness } from "../../../test/support/mcp.js";
import { type OpenAIStub, startOpenAIStub } from "../../../test/support/openai-stub.js";
import { enrichAll } from "../../../test/support/worker.js";
import { type EngramTools, engramTools, TOOL_ROLES } from "../src/index.js";

let stub: OpenAIStub;
let h: McpHarness;
let memory: EngramTools;
const contentTypes: (string | null)[] = [];
const entity = `ai-sdk-${randomUUID()}`;
let declined: string;

beforeAll(async () => {
  stub = await startOpenAIStub();
  h = await mcpHarness({}, await stubCatalog(stub.baseUrl));
  const engram = new Engram({
    url: h.url,
    key: h.key,
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      contentTypes.push(response.headers.get("content-type"));
      return response;
    },
  });
  const written = await engram.records.write([
    { collection: "customer_events", entity, type: "ticket", text: "Card declined at checkout" },
  ]);
  declined = written.inserted[0]?.id as string;
  await enrichAll(h.test.db, h.workspaceId);
  memory = await engramTools(engram, { kinds: [...TOOL_ROLES.answer] });
});
afterAll(async () => {
  await memory?.close();
  await h?.close();
  await stub?.close();
});

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

it("a long answer call comes back through progress to the model, with its citations", async () => {
  // Slower than the server's progress interval (1 s): the reply turns into an event stream.
  stub.handle("chat", (request) => ({ ...citing(1)(request), delayMs: 1500 }));
  const question = { question: "What happened with the card?", entities: [entity] };
  const model = new MockLanguageModelV3({
    doGenerate: [
      {
        content: [
          { type: "tool-call", toolCallId: "ask-1", toolName: "ask_memory", input: JSON.stringify(question) },
        ],
        finishReason: { unified: "tool-calls", raw: undefined },
        usage,
        warnings: [],
      },
      {
        content: [{ type: "text", text: "Your card was declined at checkout." }],
        finishReason: { unified: "stop", raw: undefined },
        usage,
        warnings: [],
      },
    ],
  });
  expect(Object.keys(memory.tools)).toEqual(["ask_memory"]);
  contentTypes.length = 0;

  const result = await generateText({
    model,
    tools: memory.tools,
    prompt: "card?",
    stopWhen: stepCountIs(3),
  });

  const [answered] = result.steps[0]?.toolResults ?? [];
  expect(answered?.output).toMatchObject({
    answer: "The card was declined.",
    citations: [declined],
    saved_id: null,
  });
  const shown = model.doGenerateCalls[1]?.prompt.find((message) => message.role === "tool");
  expect(shown?.content).toEqual([
    expect.objectContaining({ toolName: "ask_memory", output: { type: "json", value: answered?.output } }),
  ]);
  expect(contentTypes.some((type) => type?.startsWith("text/event-stream"))).toBe(true);
  expect(result.text).toBe("Your card was declined at checkout.");
});
