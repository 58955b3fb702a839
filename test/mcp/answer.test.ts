// The answer tool: POST /answer's domain function with save forced off, through the official
// client at both revisions, the model on the local OpenAI stub.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { citing, stubCatalog } from "../support/answer-stub.js";
import { type McpHarness, mcpHarness, REVISIONS } from "../support/mcp.js";
import { chatReply, type OpenAIStub, startOpenAIStub } from "../support/openai-stub.js";
import { enrichAll } from "../support/worker.js";

let stub: OpenAIStub;
let h: McpHarness;
let declined: string;

beforeAll(async () => {
  stub = await startOpenAIStub();
  h = await mcpHarness({}, await stubCatalog(stub.baseUrl));
  const res = await h.test.app.inject({
    method: "POST",
    url: "/records",
    headers: h.headers,
    payload: {
      records: [
        { collection: "customer_events", entity: "c1", type: "ticket", text: "Card declined at checkout" },
      ],
    },
  });
  declined = res.json().inserted[0].id;
  await enrichAll(h.test.db, h.workspaceId);
});
beforeEach(() => stub.reset());
afterAll(async () => {
  await h.close();
  await stub.close();
});

describe.each(REVISIONS)("answer tool at %s", (revision) => {
  it("answers with verified citations and never saves", async () => {
    stub.handle("chat", citing(1));
    const client = await h.connect(revision);
    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name === "ask_memory");
    expect(tool?.inputSchema.properties).not.toHaveProperty("save");
    expect(Object.keys(tool?.inputSchema.properties ?? {})).toContain("entities");
    expect(tool?.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: false });

    const result = await client.callTool({
      name: "ask_memory",
      arguments: { question: "What happened with the card?", entities: ["c1"] },
    });
    expect(result.isError ?? false).toBe(false);
    expect(result.structuredContent).toMatchObject({
      answer: "The card was declined.",
      citations: [declined],
      saved_id: null,
    });
  });

  it("save is not an argument (isError request_schema; no model call)", async () => {
    const client = await h.connect(revision);
    const result = await client.callTool({
      name: "ask_memory",
      arguments: { question: "card?", save: true },
    });
    expect(result.isError).toBe(true);
    expect(JSON.parse((result.content as { text: string }[])[0]?.text as string).code).toBe("request_schema");
    expect(stub.requests.filter((r) => r.path === "/v1/chat/completions")).toHaveLength(0);
  });

  it("a model failure is an isError result with the answer's problem code", async () => {
    stub.handle("chat", () => chatReply("not json"));
    const client = await h.connect(revision);
    const result = await client.callTool({ name: "ask_memory", arguments: { question: "card declined?" } });
    expect(result.isError).toBe(true);
    expect(JSON.parse((result.content as { text: string }[])[0]?.text as string)).toMatchObject({
      status: 502,
      code: "answer_model",
    });
  });
});

describe.each(REVISIONS)("a long call at %s", (revision) => {
  it("reports progress on a request-scoped stream when the client asked for it", async () => {
    stub.handle("chat", (request) => ({ ...citing(1)(request), delayMs: 1500 }));
    const client = await h.connect(revision);
    const progress: number[] = [];
    const result = await client.callTool(
      { name: "ask_memory", arguments: { question: "What happened with the card?" } },
      { onprogress: (p) => progress.push(p.progress) },
    );
    expect(result.structuredContent).toMatchObject({ citations: [declined] });
    expect(progress.length).toBeGreaterThan(0);
  });
});
