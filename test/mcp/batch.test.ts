// A JSON-RPC batch on POST /mcp (docs/api.md "MCP"): each message in it counts against the key's
// rate limit, so one request cannot multiply a key's tool calls (and the model requests behind
// them); a batch past MCP_BATCH_MAX is refused whole. Either refusal runs nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MCP_BATCH_MAX } from "../../src/mcp/index.js";
import { citing, stubCatalog } from "../support/answer-stub.js";
import { type McpHarness, mcpHarness } from "../support/mcp.js";
import { type OpenAIStub, startOpenAIStub } from "../support/openai-stub.js";
import { enrichAll } from "../support/worker.js";

let stub: OpenAIStub;
let h: McpHarness;
const LIMIT = 5;

beforeAll(async () => {
  stub = await startOpenAIStub();
  h = await mcpHarness({ RATE_LIMIT_MAX: String(LIMIT) }, await stubCatalog(stub.baseUrl));
});
afterAll(async () => {
  await h.close();
  await stub.close();
});

/** A batch of `n` ask_memory calls, as a client on the 2025-11-25 revision sends it. */
function askBatch(n: number, headers = h.headers) {
  const batch = Array.from({ length: n }, (_, i) => ({
    jsonrpc: "2.0",
    id: i + 1,
    method: "tools/call",
    params: { name: "ask_memory", arguments: { question: `Why was the card declined? (${i})` } },
  }));
  return fetch(new URL("/mcp", h.url), {
    method: "POST",
    headers: {
      ...headers,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-11-25",
    },
    body: JSON.stringify(batch),
  });
}

/** The JSON-RPC replies of a response, whether sent as JSON or as server-sent events. */
async function replies(res: Response): Promise<unknown[]> {
  const text = await res.text();
  if (!res.headers.get("content-type")?.startsWith("text/event-stream")) return [JSON.parse(text)].flat();
  return text
    .split("\n")
    .filter((line) => line.startsWith("data: "))
    .flatMap((line) => [JSON.parse(line.slice(6))].flat());
}

/** A new workspace with the stub catalog: a key of its own, with a rate budget of its own. */
async function freshKey(name: string) {
  const ws = await h.test.workspace(name);
  const published = await h.test.publish(ws.headers, await stubCatalog(stub.baseUrl));
  expect(published.statusCode, published.body).toBe(200);
  // Evidence to answer from: an answer with none found calls no model.
  await h.test.writeRecords(ws.headers, [
    { collection: "customer_events", entity: "acme", type: "ticket", text: "Card declined at checkout" },
  ]);
  await enrichAll(h.test.db, ws.id);
  return ws.headers;
}

describe("a JSON-RPC batch on POST /mcp", () => {
  it("runs every call of a batch within the limit, each charged", async () => {
    const headers = await freshKey("within");
    stub.reset();
    stub.handle("chat", citing());
    const res = await askBatch(3, headers);
    expect(res.status).toBe(200);
    const answered = (await replies(res)) as { id: number; result: { isError?: boolean } }[];
    expect(answered.map((reply) => reply.id).sort()).toEqual([1, 2, 3]);
    for (const reply of answered) expect(reply.result.isError, JSON.stringify(reply)).toBeFalsy();
    expect(stub.requests).toHaveLength(3);
    // 3 of the key's 5 are spent: a batch of 3 more passes the limit and is refused whole.
    const over = await askBatch(3, headers);
    expect(over.status).toBe(429);
    expect(stub.requests).toHaveLength(3);
  });

  it("counts each message against the key's rate limit: 20 calls under a limit of 5 send at most 5 model requests", async () => {
    stub.reset();
    stub.handle("chat", citing());
    const res = await askBatch(20, await freshKey("twenty"));
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toMatch(/^\d+$/);
    expect((await res.json()).code).toBe("rate_limited");
    expect(stub.requests.length).toBeLessThanOrEqual(LIMIT);
    expect(stub.requests).toHaveLength(0);
  });

  it("refuses a batch past MCP_BATCH_MAX whole, before any of it runs", async () => {
    const t = await mcpHarness({ RATE_LIMIT_MAX: "0" }, await stubCatalog(stub.baseUrl));
    try {
      stub.reset();
      const batch = Array.from({ length: MCP_BATCH_MAX + 1 }, (_, i) => ({
        jsonrpc: "2.0",
        id: i + 1,
        method: "tools/list",
      }));
      const res = await fetch(new URL("/mcp", t.url), {
        method: "POST",
        headers: {
          ...t.headers,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2025-11-25",
        },
        body: JSON.stringify(batch),
      });
      expect(res.status).toBe(400);
      const reply = await res.json();
      expect(reply.error.code).toBe(-32600);
      expect(reply.error.message).toMatch(new RegExp(`${MCP_BATCH_MAX}`));
    } finally {
      await t.close();
    }
  });
});
