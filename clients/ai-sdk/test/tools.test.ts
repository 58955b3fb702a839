// The workspace's MCP tools driven by the AI SDK's own loop (generateText with a mock model that
// calls them) against a real `engram serve`: writes land in Engram, results reach the model's
// next prompt, a refused call reaches it as an error, and the model sees GET /tools' schemas.
import { randomUUID } from "node:crypto";
import { Engram, EngramError } from "@engram/client";
import { generateText, stepCountIs, type ToolSet } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEngram, startEngram } from "../../../test/support/engram-serve.js";
import { waitFor } from "../../../test/support/wait.js";
import { type EngramTools, engramTools, TOOL_ROLES } from "../src/index.js";

type ModelCall = MockLanguageModelV3["doGenerateCalls"][number];
type ModelReply = Awaited<ReturnType<MockLanguageModelV3["doGenerate"]>>;

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

function callsTool(toolName: string, input: object): ModelReply {
  return {
    content: [{ type: "tool-call", toolCallId: randomUUID(), toolName, input: JSON.stringify(input) }],
    finishReason: { unified: "tool-calls", raw: undefined },
    usage,
    warnings: [],
  };
}

function says(text: string): ModelReply {
  return {
    content: [{ type: "text", text }],
    finishReason: { unified: "stop", raw: undefined },
    usage,
    warnings: [],
  };
}

/** The tool results a model call was prompted with, as the model reads them. */
function toolResultsIn(call: ModelCall | undefined) {
  return (call?.prompt ?? []).flatMap((message) =>
    message.role === "tool" ? message.content.filter((part) => part.type === "tool-result") : [],
  );
}

/** The single item of a list (failing the test on none or several). */
function only<T>(items: T[] | undefined, what: string): T {
  const [item] = items ?? [];
  if (item === undefined || (items?.length ?? 0) > 1)
    throw new Error(`expected one ${what}, got ${items?.length}`);
  return item;
}

/** A model that answers with `replies` in turn; a reply may depend on the prompt it got. */
function scriptedModel(
  replies: ((call: ModelCall) => ModelReply | Promise<ModelReply>)[],
): MockLanguageModelV3 {
  let step = 0;
  return new MockLanguageModelV3({
    doGenerate: async (call) => {
      const reply = replies[step++];
      if (!reply) throw new Error(`the model was called more than ${replies.length} times`);
      return reply(call);
    },
  });
}

let server: RunningEngram;
let engram: Engram;
let memory: EngramTools;

beforeAll(async () => {
  server = await startEngram();
  engram = new Engram({ url: server.url, key: server.key });
  memory = await engramTools(engram);
});
afterAll(async () => {
  await memory?.close();
  await server?.stop();
});

const customer = () => `ai-sdk-${randomUUID()}`;

async function timeline(entity: string) {
  const rows = [];
  for await (const row of engram.timeline({ entity })) rows.push(row);
  return rows;
}

describe("engramTools with generateText", () => {
  it("the model logs an event, searches the customer's history, and reads both results", async () => {
    const entity = customer();
    const event = {
      entity,
      type: "call",
      text: "Called because the March invoice was charged twice",
      content: { channel: "phone", topic: "billing", priority: 4, tags: ["invoice"] },
    };
    const model = scriptedModel([
      () => callsTool("log_event", event),
      async (call) => {
        // Like a model reading its prompt: the id comes from the log_event result it was shown.
        const logged = only(toolResultsIn(call), "tool result in the prompt");
        if (logged.output.type !== "json") throw new Error(`log_event result shown as ${logged.output.type}`);
        const { id } = logged.output.value as { id: string };
        // Searchable once the worker has embedded it.
        await waitFor(async () => (await engram.records.get(id)).ready);
        return callsTool("customer_history", { customer: entity, question: "invoice charged twice" });
      },
      () => says("You were charged twice for March; I have noted it."),
    ]);

    const result = await generateText({
      model,
      tools: memory.tools,
      system: memory.instructions,
      prompt: "I was charged twice for my March invoice!",
      stopWhen: stepCountIs(5),
    });

    expect(result.text).toBe("You were charged twice for March; I have noted it.");
    expect(result.steps).toHaveLength(3);
    const logged = only(result.steps[0]?.toolResults, "log_event result");
    expect(logged.toolName).toBe("log_event");
    const { id } = logged.output as { id: string };
    expect(logged.output).toEqual({ id, ready: expect.any(Boolean), duplicate: false });
    expect(await engram.records.get(id)).toMatchObject({
      id,
      entity,
      collection: "customer_events",
      type: "call",
      text: event.text,
      content: event.content,
    });

    const history = only(result.steps[1]?.toolResults, "customer_history result");
    expect(history.toolName).toBe("customer_history");
    const found = history.output as { hits: { id: string }[]; parameters: object };
    expect(found.parameters).toEqual({ customer: entity, question: "invoice charged twice", limit: 10 });
    expect(found.hits.map((hit) => hit.id)).toContain(id);

    // Each result went back to the model in the next step's prompt, as JSON.
    expect(toolResultsIn(model.doGenerateCalls[1])).toEqual([
      expect.objectContaining({ toolName: "log_event", output: { type: "json", value: logged.output } }),
    ]);
    expect(toolResultsIn(model.doGenerateCalls[2])).toEqual([
      expect.objectContaining({ toolName: "log_event" }),
      expect.objectContaining({ toolName: "customer_history", output: { type: "json", value: found } }),
    ]);
    // The workspace interface's instructions made the system prompt.
    expect(model.doGenerateCalls[0]?.prompt[0]).toEqual({
      role: "system",
      content: "Look up what we know about a customer before answering them, and record what happened.",
    });
  });

  it("the model is given each tool's description and GET /tools' input schema", async () => {
    const model = scriptedModel([() => says("Nothing to do.")]);
    await generateText({ model, tools: memory.tools, prompt: "hello" });
    const given = (model.doGenerateCalls[0]?.tools ?? []).map((tool) =>
      tool.type === "function"
        ? { name: tool.name, description: tool.description, input: tool.inputSchema }
        : { name: tool.name },
    );
    const { tools } = await engram.tools();
    expect(given).toEqual(
      tools.map((tool) => ({ name: tool.name, description: tool.description, input: tool.input_schema })),
    );
    expect(given.map((tool) => tool.name)).toEqual([
      "customer_history",
      "support_brief",
      "ask_memory",
      "get_record",
      "log_event",
    ]);
  });

  it("a refused call is a tool error the model sees, with Engram's problem; nothing is written", async () => {
    const entity = customer();
    const model = scriptedModel([
      // priority above the collection's maximum, and a property its schema does not have
      () =>
        callsTool("log_event", { entity, type: "call", text: "x", content: { priority: 9, mood: "angry" } }),
      () => says("Sorry, I could not record that."),
    ]);
    const result = await generateText({
      model,
      tools: memory.tools,
      prompt: "Log it",
      stopWhen: stepCountIs(3),
    });

    expect(result.steps).toHaveLength(2);
    const failure = result.steps[0]?.content.find((part) => part.type === "tool-error");
    expect(failure?.toolName).toBe("log_event");
    const error = failure?.error;
    expect(error).toBeInstanceOf(EngramError);
    expect(error).toMatchObject({ status: 422, code: "request_schema" });
    const paths = (error as EngramError).problem.errors?.map((e) => e.path).sort();
    expect(paths).toEqual(["content.mood", "content.priority"]);

    const [shown] = toolResultsIn(model.doGenerateCalls[1]);
    expect(shown?.toolName).toBe("log_event");
    expect(shown?.output).toEqual({ type: "error-text", value: (error as EngramError).message });
    expect((error as EngramError).message).toMatch(/^request_schema: invalid arguments: .*content\.priority/);
    expect(await timeline(entity)).toEqual([]);
  });

  it("an abort signal cancels a running tool call", async () => {
    const controller = new AbortController();
    controller.abort(new Error("the user left"));
    const execute = memory.tools.customer_history?.execute;
    await expect(
      execute?.(
        { customer: customer(), question: "anything" },
        { toolCallId: "1", messages: [], abortSignal: controller.signal },
      ),
    ).rejects.toThrow(/the user left|abort/i);
  });
});

describe("choosing tools", () => {
  async function chosen(options: Parameters<typeof engramTools>[1]): Promise<string[]> {
    const handle = await engramTools({ url: server.url, key: server.key }, options);
    try {
      return Object.keys(handle.tools);
    } finally {
      await handle.close();
    }
  }

  it("by MCP name", async () => {
    expect(await chosen({ names: ["log_event", "customer_history"] })).toEqual([
      "customer_history",
      "log_event",
    ]);
  });

  it("by kind, from GET /tools (the roles: remember and answer)", async () => {
    expect(await chosen({ kinds: [...TOOL_ROLES.remember, ...TOOL_ROLES.answer] })).toEqual([
      "ask_memory",
      "log_event",
    ]);
    expect(await chosen({ kinds: [...TOOL_ROLES.recall] })).toEqual([
      "customer_history",
      "support_brief",
      "get_record",
    ]);
  });

  it("names and kinds together: either one chooses a tool", async () => {
    expect(await chosen({ names: ["get_record"], kinds: ["view"] })).toEqual([
      "customer_history",
      "get_record",
    ]);
  });

  it("an unknown name is an error naming what the key sees", async () => {
    await expect(chosen({ names: ["customer_history", "forget_everything"] })).rejects.toThrow(
      /no tool forget_everything for this key; it sees customer_history, support_brief, ask_memory, get_record, log_event/,
    );
  });

  it("only chosen tools are offered to the model", async () => {
    const handle = await engramTools(engram, { names: ["get_record"] });
    try {
      const model = scriptedModel([() => callsTool("log_event", { entity: "x", type: "call" })]);
      const result = await generateText({ model, tools: handle.tools, prompt: "log" });
      expect(model.doGenerateCalls[0]?.tools?.map((tool) => tool.name)).toEqual(["get_record"]);
      const failure = result.steps[0]?.content.find((part) => part.type === "tool-error");
      // An invalid call's error is the AI SDK's NoSuchToolError message.
      expect(failure?.error).toBe(
        "Model tried to call unavailable tool 'log_event'. Available tools: get_record.",
      );
    } finally {
      await handle.close();
    }
  });
});

describe("closing", () => {
  it("after close() the tools no longer run", async () => {
    const handle = await engramTools(engram, { names: ["get_record"] });
    const tools: ToolSet = handle.tools;
    const options = { toolCallId: "1", messages: [] };
    const id = randomUUID();
    await expect(tools.get_record?.execute?.({ id }, options)).rejects.toMatchObject({ code: "not_found" });
    await handle.close();
    await expect(tools.get_record?.execute?.({ id }, options)).rejects.toThrow(/not connected|closed/i);
  });
});
