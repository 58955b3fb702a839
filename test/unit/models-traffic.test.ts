// Model traffic (docs/operations.md, "Model endpoints"): every HTTP request a provider receives is
// sent, counted and budgeted by the router (the SDK retries nothing), no redirect is followed on
// any path, and text a provider sends back is redacted of the secrets it was sent. Against local
// OpenAI-compatible stubs that record every request they receive.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ModelsConf, ProviderDef } from "../../src/catalog/index.js";
import {
  type CreateModelsOptions,
  createModels,
  type ModelCall,
  ModelOutputError,
  ModelTransportError,
  type RequestBudget,
} from "../../src/models/index.js";
import { chatReply, errorReply, type OpenAIStub, startOpenAIStub } from "../support/openai-stub.js";

const KEY_VARIABLE = "ENGRAM_TEST_TRAFFIC_KEY";
const SECRET = "sk-traffic-0123456789-secret";
const OTHER_SECRET = "metrics-token-never-to-be-shown";

let stub: OpenAIStub;
/** Where the stub redirects to: it must never receive anything. */
let elsewhere: OpenAIStub;

beforeAll(async () => {
  stub = await startOpenAIStub();
  elsewhere = await startOpenAIStub();
});
afterAll(async () => {
  await stub.close();
  await elsewhere.close();
});
beforeEach(() => {
  stub.reset();
  elsewhere.reset();
});

const provider: () => ProviderDef = () => ({
  adapter: "openai",
  base_url: stub.baseUrl,
  api_key_env: KEY_VARIABLE,
  token_limit_field: "max_completion_tokens",
  json_capability: "json_schema",
  json_schema_strict: true,
});

/** Models on the stub, sending SECRET as the key; every request reported into `calls`. */
function setup(options: Partial<CreateModelsOptions> = {}) {
  const calls: ModelCall[] = [];
  const conf: ModelsConf = {
    providers: { main: provider() },
    aliases: {
      chat: { kind: "model", targets: ["main:m"], params: {}, context_tokens: null },
      vectors: { kind: "embedding", provider: "main", model: "nomic", dimensions: 3, space: "s" },
    },
    defaults: {},
  };
  const models = createModels(conf, {
    endpoints: [{ url: stub.baseUrl, variable: KEY_VARIABLE }],
    env: { [KEY_VARIABLE]: SECRET },
    secrets: [OTHER_SECRET],
    timeoutMs: 5_000,
    retryBaseMs: 1,
    onCall: (call) => calls.push(call),
    ...options,
  });
  return { models, calls };
}

const schema = {
  type: "object",
  required: ["label"],
  properties: { label: { type: "string" } },
  additionalProperties: false,
};
const task = { task: "classify.v1", prompt: "Classify the text.", input: "hello", schema };
const ok = () => chatReply('{"label":"ok"}', { usage: { prompt_tokens: 3, completion_tokens: 1 } });

describe("every request a provider receives is one the router sent and counted", () => {
  for (const [name, first] of [
    ["a 500", errorReply(500)],
    ["a 429 with Retry-After", { ...errorReply(429), headers: { "retry-after": "0" } }],
    ["a timeout", { ...ok(), delayMs: 1_000 }],
  ] as const) {
    it(`retries ${name} once within the budget; sent, metrics and requests agree`, async () => {
      stub.enqueue("chat", first, ok());
      const { models, calls } = setup({ timeoutMs: 300 });
      const budget: RequestBudget = { left: 2, sent: 0 };
      expect((await models.json("chat", { ...task, budget })).value).toEqual({ label: "ok" });
      expect(stub.requests).toHaveLength(2);
      expect(budget).toMatchObject({ sent: 2, left: 0 });
      expect(calls.map((call) => [call.attempt, call.ok])).toEqual([
        ["first", false],
        ["retry", true],
      ]);
      expect(calls.every((call) => call.endpoint === stub.baseUrl && call.operation === "json")).toBe(true);
    });
  }

  it("waits as long as Retry-After says before asking again", async () => {
    stub.enqueue("chat", { ...errorReply(429), headers: { "retry-after": "1" } }, ok());
    const { models } = setup();
    const started = performance.now();
    await models.json("chat", task);
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
    expect(stub.requests).toHaveLength(2);
  });

  it("never sends past the budget against a provider that always fails", async () => {
    stub.handle("chat", () => errorReply(503));
    const { models, calls } = setup({ maxRetries: 5 });
    const budget: RequestBudget = { left: 2, sent: 0 };
    await expect(models.json("chat", { ...task, budget })).rejects.toBeInstanceOf(ModelTransportError);
    expect(stub.requests).toHaveLength(2);
    expect(budget.sent).toBe(2);
    expect(calls).toHaveLength(2);
  });

  it("retries no failure that asking again cannot mend (a 400), and counts the one request", async () => {
    stub.handle("chat", () => errorReply(400, "bad request"));
    const { models, calls } = setup({ maxRetries: 2 });
    await expect(models.json("chat", task)).rejects.toMatchObject({ status: 400 });
    expect(stub.requests).toHaveLength(1);
    expect(calls).toHaveLength(1);
  });

  it("sends nothing more once the budget's signal is aborted (a deadline passed)", async () => {
    stub.handle("chat", () => ({ ...ok(), delayMs: 2_000 }));
    const { models } = setup();
    const expiry = new AbortController();
    const budget: RequestBudget = { left: 2, sent: 0, signal: expiry.signal };
    const call = models.json("chat", { ...task, budget });
    setTimeout(() => expiry.abort(), 100);
    await expect(call).rejects.toBeInstanceOf(ModelTransportError);
    expect(budget.sent).toBe(1);
    expect(stub.requests).toHaveLength(1);
  });
});

describe("no redirect is followed to a model provider", () => {
  for (const status of [307, 302, 301, 308]) {
    it(`a ${status} is a provider failure naming the status, on chat and embeddings; nothing reaches the other port`, async () => {
      const redirect = (path: string) => ({
        status,
        headers: { location: `${elsewhere.baseUrl}/${path}` },
        json: { error: { message: "moved" } },
      });
      stub.handle("chat", () => redirect("chat/completions"));
      stub.handle("embeddings", () => redirect("embeddings"));
      const { models } = setup({ maxRetries: 2 });
      for (const call of [
        () => models.json("chat", task),
        () => models.score("chat", { prompt: "p", text: "t", scale: [0, 1] }),
        () => models.rerank("chat", { query: "q", documents: ["a"] }),
        () => models.embed("vectors", ["a"]),
      ]) {
        const error = await call().catch((e) => e);
        expect(error).toBeInstanceOf(ModelTransportError);
        expect(error.message).toMatch(new RegExp(`answered ${status}, a redirect, which is not followed`));
      }
      expect(stub.requests).toHaveLength(4);
      expect(elsewhere.requests).toHaveLength(0);
    });
  }
});

describe("text a provider sends back is redacted of the server's secrets", () => {
  const echo = (text: string) => text.replace(/\n/g, " ");

  it("an error quoting the Authorization header it received shows [redacted], never the key", async () => {
    stub.handle("chat", (request) =>
      errorReply(401, `invalid credentials: ${echo(String(request.headers.authorization))}`),
    );
    const { models } = setup();
    const error = await models.json("chat", task).catch((e) => e);
    expect(stub.requests[0]?.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(error.message).toMatch(/invalid credentials: Bearer \[redacted\]/);
    expect(JSON.stringify(error)).not.toContain(SECRET);
    expect(String(error.stack)).not.toContain(SECRET);
    expect(error.cause).toBeUndefined();
  });

  it("a reply that quotes the key or another configured secret is redacted wherever it goes", async () => {
    const { models } = setup();
    stub.enqueue("chat", chatReply(`not json: ${SECRET} and ${OTHER_SECRET}`));
    const malformed = await models.json("chat", task).catch((e) => e);
    expect(malformed).toBeInstanceOf(ModelOutputError);
    expect(malformed.message).not.toContain(SECRET);
    expect(malformed.message).not.toContain(OTHER_SECRET);
    expect(malformed.message).toMatch(/\[redacted\] and \[redacted\]/);

    stub.enqueue("chat", chatReply(JSON.stringify({ label: `the key is ${SECRET}` })));
    expect((await models.json("chat", task)).value).toEqual({ label: "the key is [redacted]" });

    stub.enqueue("chat", chatReply(`about ${SECRET}`));
    const score = await models.score("chat", { prompt: "p", text: "t", scale: [0, 1] }).catch((e) => e);
    expect(score.message).not.toContain(SECRET);
  });
});
