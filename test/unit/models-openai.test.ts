import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ModelsConf, ProviderDef } from "../../src/catalog/index.js";
import { endpointUrl } from "../../src/config/index.js";
import {
  type CreateModelsOptions,
  createModels,
  ModelOutputError,
  ModelTransportError,
  modelAppError,
} from "../../src/models/index.js";
import {
  chatReply,
  embeddingsReply,
  errorReply,
  type OpenAIStub,
  refusedBaseUrl,
  startOpenAIStub,
} from "../support/openai-stub.js";

let stub: OpenAIStub;
let second: OpenAIStub;
let refused: string;

beforeAll(async () => {
  [stub, second, refused] = await Promise.all([startOpenAIStub(), startOpenAIStub(), refusedBaseUrl()]);
});
afterAll(async () => {
  await Promise.all([stub.close(), second.close()]);
});
beforeEach(() => {
  stub.reset();
  second.reset();
});

function provider(base_url: string, overrides: Partial<ProviderDef> = {}): ProviderDef {
  return {
    adapter: "openai",
    base_url,
    api_key_env: null,
    token_limit_field: "max_completion_tokens",
    json_capability: "json_schema",
    json_schema_strict: true,
    ...overrides,
  };
}

/** MODEL_ENDPOINTS allowing every provider as it is configured. */
function allowing(providers: Record<string, ProviderDef>): CreateModelsOptions["endpoints"] {
  return Object.values(providers).map((p) => ({
    url: endpointUrl(p.base_url ?? "https://api.openai.com/v1"),
    variable: p.api_key_env,
  }));
}

function setup(
  providers: Record<string, ProviderDef>,
  targets: string[],
  options: Partial<CreateModelsOptions> = {},
  params: { max_output_tokens?: number } = { max_output_tokens: 300 },
) {
  const conf: ModelsConf = {
    providers,
    aliases: {
      chat: { kind: "model", targets, params, context_tokens: null },
      vectors: {
        kind: "embedding",
        provider: Object.keys(providers)[0] as string,
        model: "nomic",
        dimensions: 3,
        space: "s",
      },
      shortened: {
        kind: "embedding",
        provider: Object.keys(providers)[0] as string,
        model: "text-embedding-3-small",
        dimensions: 5,
        space: "s5",
      },
    },
    defaults: {},
  };
  return createModels(conf, { endpoints: allowing(providers), maxRetries: 0, timeoutMs: 5_000, ...options });
}

const schema = {
  type: "object",
  required: ["label"],
  properties: { label: { type: "string" } },
  additionalProperties: false,
};
const task = { task: "classify.v1", prompt: "Classify the text.", input: { text: "hello" }, schema };

describe("openai adapter: embeddings", () => {
  it("sends floats without dimensions and checks the vectors", async () => {
    stub.enqueue(
      "embeddings",
      embeddingsReply([
        [1, 0, 0],
        [0, 1, 0],
      ]),
    );
    const models = setup({ main: provider(stub.baseUrl) }, ["main:gpt"]);
    expect(await models.embed("vectors", ["a", "b"])).toEqual([
      [1, 0, 0],
      [0, 1, 0],
    ]);
    const [request] = stub.requests;
    expect(request).toMatchObject({ method: "POST", path: "/v1/embeddings" });
    expect(request?.body).toEqual({ model: "nomic", input: ["a", "b"], encoding_format: "float" });
  });

  it("orders vectors by their index", async () => {
    stub.enqueue("embeddings", {
      json: {
        object: "list",
        data: [
          { object: "embedding", index: 1, embedding: [0, 1, 0] },
          { object: "embedding", index: 0, embedding: [1, 0, 0] },
        ],
      },
    });
    const models = setup({ main: provider(stub.baseUrl) }, ["main:gpt"]);
    expect(await models.embed("vectors", ["a", "b"])).toEqual([
      [1, 0, 0],
      [0, 1, 0],
    ]);
  });

  it("sends dimensions to models that shorten their vectors", async () => {
    const models = setup({ main: provider(stub.baseUrl) }, ["main:gpt"]);
    expect((await models.embed("shortened", ["a"]))[0]).toHaveLength(5);
    expect(stub.requests[0]?.body.dimensions).toBe(5);
  });

  it("refuses vectors of the wrong dimensions with ModelOutputError", async () => {
    stub.enqueue("embeddings", embeddingsReply([[1, 0, 0, 0]]));
    const models = setup({ main: provider(stub.baseUrl) }, ["main:gpt"]);
    const error = await models.embed("vectors", ["a"]).catch((e) => e);
    expect(error).toBeInstanceOf(ModelOutputError);
    expect(error).toMatchObject({ alias: "vectors", target: "main:nomic" });
    expect(error.message).toMatch(/3 dimensions, got 4/);
    expect(modelAppError(error, "embeddings")).toMatchObject({ code: "embeddings_unavailable", status: 503 });
  });

  it("reports a failing server as ModelTransportError", async () => {
    stub.enqueue("embeddings", errorReply(500));
    const models = setup({ main: provider(stub.baseUrl) }, ["main:gpt"]);
    const error = await models.embed("vectors", ["a"]).catch((e) => e);
    expect(error).toBeInstanceOf(ModelTransportError);
    expect(error.status).toBe(500);
  });

  it("sends the api_key_env value as bearer token", async () => {
    const models = setup({ main: provider(stub.baseUrl, { api_key_env: "STUB_KEY" }) }, ["main:gpt"], {
      env: { STUB_KEY: "sk-test-123" },
    });
    await models.embed("shortened", ["a"]);
    expect(stub.requests[0]?.headers.authorization).toBe("Bearer sk-test-123");
  });

  it("sends a placeholder key when no api_key_env is configured", async () => {
    const models = setup({ main: provider(stub.baseUrl) }, ["main:gpt"], { env: { OPENAI_API_KEY: "leak" } });
    await models.embed("shortened", ["a"]);
    expect(stub.requests[0]?.headers.authorization).toBe("Bearer unused");
  });

  it("fails with ModelTransportError when the api key variable is missing", async () => {
    const models = setup({ main: provider(stub.baseUrl, { api_key_env: "ABSENT_KEY" }) }, ["main:gpt"], {
      env: {},
    });
    const error = await models.embed("vectors", ["a"]).catch((e) => e);
    expect(error).toBeInstanceOf(ModelTransportError);
    // Named neither in the message nor anywhere a client reads: no oracle of the server's variables.
    expect(error.message).toMatch(/key variable .* is not set/);
    expect(error.message).not.toMatch(/ABSENT_KEY/);
    expect(stub.requests).toHaveLength(0);
  });
});

describe("openai adapter: JSON tasks", () => {
  it("json_schema: sends response_format json_schema and max_completion_tokens", async () => {
    stub.enqueue(
      "chat",
      chatReply('{"label":"greeting"}', { usage: { prompt_tokens: 11, completion_tokens: 4 } }),
    );
    const models = setup({ main: provider(stub.baseUrl, { json_schema_strict: false }) }, ["main:gpt-x"]);
    const result = await models.json("chat", task);
    expect(result).toEqual({
      value: { label: "greeting" },
      usage: { prompt_tokens: 11, completion_tokens: 4, estimated: false },
    });
    const body = stub.requests[0]?.body;
    expect(stub.requests[0]?.path).toBe("/v1/chat/completions");
    expect(body.model).toBe("gpt-x");
    expect(body.response_format).toEqual({
      type: "json_schema",
      json_schema: { name: "classify_v1", schema, strict: false },
    });
    expect(body.max_completion_tokens).toBe(300);
    expect(body).not.toHaveProperty("max_tokens");
    expect(body.messages).toEqual([
      { role: "system", content: "Classify the text." },
      { role: "user", content: '{"text":"hello"}' },
    ]);
  });

  it("max_tokens when the provider's token_limit_field says so; none without max_output_tokens", async () => {
    stub.enqueue("chat", chatReply('{"label":"a"}'), chatReply('{"label":"b"}'));
    const models = setup({ main: provider(stub.baseUrl, { token_limit_field: "max_tokens" }) }, ["main:m"]);
    await models.json("chat", task);
    expect(stub.requests[0]?.body.max_tokens).toBe(300);
    expect(stub.requests[0]?.body).not.toHaveProperty("max_completion_tokens");
    const bare = setup({ main: provider(stub.baseUrl) }, ["main:m"], {}, {});
    await bare.json("chat", task);
    expect(stub.requests[1]?.body).not.toHaveProperty("max_completion_tokens");
    expect(stub.requests[1]?.body).not.toHaveProperty("max_tokens");
  });

  it("json_object: sends response_format json_object and the schema in the prompt", async () => {
    stub.enqueue("chat", chatReply(' {"label":"x"} \n'));
    const models = setup({ main: provider(stub.baseUrl, { json_capability: "json_object" }) }, ["main:m"]);
    const result = await models.json("chat", task);
    expect(result.value).toEqual({ label: "x" });
    expect(result.usage.estimated).toBe(true);
    const body = stub.requests[0]?.body;
    expect(body.response_format).toEqual({ type: "json_object" });
    expect(body.messages[0].content).toContain("JSON Schema");
    expect(body.messages[0].content).toContain(JSON.stringify(schema));
  });

  it("none: no response_format, schema in the prompt, first JSON object of the reply", async () => {
    stub.enqueue("chat", chatReply('Sure! Here it is: {"label": "a {b}"} and {"label": "later"}'));
    const models = setup({ main: provider(stub.baseUrl, { json_capability: "none" }) }, ["main:m"]);
    expect((await models.json("chat", task)).value).toEqual({ label: "a {b}" });
    const body = stub.requests[0]?.body;
    expect(body).not.toHaveProperty("response_format");
    expect(body.messages[0].content).toContain(JSON.stringify(schema));
  });

  it("malformed output is ModelOutputError and never tries the next target", async () => {
    const models = setup({ main: provider(stub.baseUrl), backup: provider(second.baseUrl) }, [
      "main:m",
      "backup:m",
    ]);
    for (const reply of [
      chatReply("not json at all"),
      chatReply('{"label": 7}'),
      chatReply(null),
      chatReply("", { refusal: "I cannot help with that." }),
      { raw: '{"choices": [' },
    ]) {
      stub.enqueue("chat", reply);
      const error = await models.json("chat", task).catch((e) => e);
      expect(error).toBeInstanceOf(ModelOutputError);
      expect(error).toMatchObject({ alias: "chat", target: "main:m" });
    }
    expect(stub.requests).toHaveLength(5);
    expect(second.requests).toHaveLength(0);
    stub.enqueue("chat", chatReply("nope"));
    const error = await models.json("chat", task).catch((e) => e);
    expect(modelAppError(error, "answer")).toMatchObject({ code: "answer_model", status: 502 });
  });

  it("falls back to the next target on a 500, keeping the configured JSON capability", async () => {
    stub.handle("chat", () => errorReply(500));
    second.enqueue("chat", chatReply('{"label":"from backup"}'));
    const models = setup(
      {
        main: provider(stub.baseUrl),
        backup: provider(second.baseUrl, { json_capability: "json_object" }),
      },
      ["main:m1", "backup:m2"],
      { maxRetries: 2 },
    );
    expect((await models.json("chat", task)).value).toEqual({ label: "from backup" });
    // The client's own retries (2) on the first target, all with json_schema: no downgrade.
    expect(stub.requests).toHaveLength(3);
    for (const request of stub.requests) expect(request.body.response_format.type).toBe("json_schema");
    expect(second.requests).toHaveLength(1);
    expect(second.requests[0]?.body.model).toBe("m2");
    expect(second.requests[0]?.body.response_format).toEqual({ type: "json_object" });
  });

  it("falls back to the next target when the first refuses connections", async () => {
    second.enqueue("chat", chatReply('{"label":"up"}'));
    const models = setup({ down: provider(refused), up: provider(second.baseUrl) }, ["down:m", "up:m"]);
    expect((await models.json("chat", task)).value).toEqual({ label: "up" });
  });

  it("throws ModelTransportError naming every target when all fail", async () => {
    stub.handle("chat", () => errorReply(503));
    const models = setup({ down: provider(refused), main: provider(stub.baseUrl) }, ["down:m", "main:m"]);
    const error = await models.json("chat", task).catch((e) => e);
    expect(error).toBeInstanceOf(ModelTransportError);
    expect(error).toMatchObject({ alias: "chat", target: "main:m", status: 503 });
    expect(error.attempts.map((a: { target: string }) => a.target)).toEqual(["down:m", "main:m"]);
    expect(modelAppError(error, "answer")).toMatchObject({ code: "answer_model_unavailable", status: 503 });
  });

  it("times out a slow provider as ModelTransportError", async () => {
    stub.enqueue("chat", { ...chatReply('{"label":"late"}'), delayMs: 2_000 });
    const models = setup({ main: provider(stub.baseUrl) }, ["main:m"], { timeoutMs: 150 });
    const started = performance.now();
    const error = await models.json("chat", task).catch((e) => e);
    expect(error).toBeInstanceOf(ModelTransportError);
    expect(error.message).toMatch(/timed out after 150 ms/);
    expect(performance.now() - started).toBeLessThan(1_500);
  });

  it("retries a 429 within the client, then succeeds", async () => {
    stub.enqueue("chat", errorReply(429), chatReply('{"label":"ok"}'));
    const models = setup({ main: provider(stub.baseUrl) }, ["main:m"], { maxRetries: 2 });
    expect((await models.json("chat", task)).value).toEqual({ label: "ok" });
    expect(stub.requests).toHaveLength(2);
  });
});

describe("openai adapter: scores", () => {
  it("asks for a number within the scale and parses the reply", async () => {
    stub.enqueue("chat", chatReply(" 7 "), chatReply("Score: 3.5."), chatReply('{"score": 9}'));
    const models = setup({ main: provider(stub.baseUrl) }, ["main:m"]);
    const input = { prompt: "How urgent?", text: "server down", scale: [0, 10] as [number, number] };
    expect(await models.score("chat", input)).toBe(7);
    expect(await models.score("chat", input)).toBe(3.5);
    expect(await models.score("chat", input)).toBe(9);
    const body = stub.requests[0]?.body;
    expect(body).not.toHaveProperty("response_format");
    expect(body.messages[0].content).toMatch(/How urgent\?[\s\S]*number from 0 to 10/);
    expect(body.messages[1]).toEqual({ role: "user", content: "server down" });
  });

  it("refuses an unparseable or out-of-scale score with ModelOutputError", async () => {
    stub.enqueue("chat", chatReply("very urgent"), chatReply("11"), chatReply("between 1 and 10: 7"));
    const models = setup({ main: provider(stub.baseUrl) }, ["main:m"]);
    const input = { prompt: "p", text: "t", scale: [0, 10] as [number, number] };
    for (const pattern of [/expected a number/, /outside the scale/, /expected a number/]) {
      const error = await models.score("chat", input).catch((e) => e);
      expect(error).toBeInstanceOf(ModelOutputError);
      expect(error.message).toMatch(pattern);
    }
  });
});

describe("openai adapter: rerank", () => {
  const input = { query: "card declined", documents: ["card declined at checkout", "refund issued"] };

  it("judges every document in one JSON call and returns relevance with the target", async () => {
    stub.enqueue("chat", chatReply(JSON.stringify({ scores: [0.9, 0.1] })));
    const models = setup({ main: provider(stub.baseUrl) }, ["main:judge"]);
    expect(await models.rerank("chat", input)).toEqual({ relevance: [0.9, 0.1], target: "main:judge" });
    expect(stub.requests).toHaveLength(1);
    const body = stub.requests[0]?.body;
    expect(body.response_format.type).toBe("json_schema");
    expect(JSON.parse(body.messages[1].content)).toEqual({
      query: "card declined",
      documents: [
        { index: 0, text: "card declined at checkout" },
        { index: 1, text: "refund issued" },
      ],
    });
  });

  it("refuses a wrong count or an out-of-range relevance with ModelOutputError", async () => {
    stub.enqueue(
      "chat",
      chatReply(JSON.stringify({ scores: [0.5] })),
      chatReply(JSON.stringify({ scores: [0.5, 1.5] })),
      chatReply(JSON.stringify({ ranking: [1, 0] })),
    );
    const models = setup({ main: provider(stub.baseUrl) }, ["main:judge"]);
    for (const pattern of [/expected 2 relevance values, got 1/, /relevance 1.5/, /got 0/]) {
      const error = await models.rerank("chat", input).catch((e) => e);
      expect(error).toBeInstanceOf(ModelOutputError);
      expect(error.message).toMatch(pattern);
    }
  });

  it("a refused connection is a transport failure that maps to 503 rerank_unavailable", async () => {
    const models = setup({ main: provider(refused) }, ["main:judge"]);
    const error = await models.rerank("chat", input).catch((e) => e);
    expect(error).toBeInstanceOf(ModelTransportError);
    expect(modelAppError(error, "rerank")).toMatchObject({ code: "rerank_unavailable", status: 503 });
  });
});
