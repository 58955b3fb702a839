import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import type { ModelsConf } from "../../src/catalog/index.js";
import {
  createModels,
  fakeEmbedding,
  loadFakeScript,
  ModelOutputError,
  modelAppError,
  parseFakeScript,
  promptKey,
  wordTokens,
} from "../../src/models/index.js";
import { AppError } from "../../src/platform/errors.js";

const conf: ModelsConf = {
  providers: {
    local: {
      adapter: "fake",
      base_url: null,
      api_key_env: null,
      token_limit_field: "max_completion_tokens",
      json_capability: "json_schema",
      json_schema_strict: true,
    },
  },
  aliases: {
    embed: { kind: "embedding", provider: "local", model: "hash", dimensions: 64, space: "fake-64" },
    small: { kind: "embedding", provider: "local", model: "hash", dimensions: 8, space: "fake-8" },
    chat: { kind: "model", targets: ["local:scripted"], params: {}, context_tokens: null },
  },
  defaults: { derivation: "chat" },
};

const cosine = (a: number[], b: number[]) => a.reduce((sum, x, i) => sum + x * (b[i] as number), 0);
const norm = (a: number[]) => Math.sqrt(cosine(a, a));

describe("fake embeddings", () => {
  const models = createModels(conf, { endpoints: [] });

  it("normalizes text into lowercased Unicode letter and digit tokens", () => {
    expect(wordTokens("Café-Bar, 42 ÉCOLE! straße")).toEqual(["café", "bar", "42", "école", "straße"]);
  });

  it("have exactly the alias's dimensions and unit length", async () => {
    const [a, b] = await models.embed("embed", ["The quick brown fox", "jumps over the lazy dog"]);
    expect(a).toHaveLength(64);
    expect(b).toHaveLength(64);
    expect(norm(a as number[])).toBeCloseTo(1, 12);
    expect(norm(b as number[])).toBeCloseTo(1, 12);
    expect((await models.embed("small", ["x"]))[0]).toHaveLength(8);
  });

  it("give an empty or wordless text the zero vector", async () => {
    const [empty, punctuation] = await models.embed("embed", ["", " ,.;!? "]);
    expect(empty).toEqual(new Array(64).fill(0));
    expect(punctuation).toEqual(new Array(64).fill(0));
  });

  it("are deterministic: same vector twice, case and punctuation do not matter", async () => {
    const [a, b, c] = await models.embed("embed", [
      "Refund requested",
      "Refund requested",
      "refund, REQUESTED!",
    ]);
    expect(a).toEqual(b);
    expect(a).toEqual(c);
  });

  it("are identical in another process", async () => {
    const code = `import { fakeEmbedding } from "./src/models/index.ts";
process.stdout.write(JSON.stringify(fakeEmbedding("Customer asked for a refund of order 42", 64)));`;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "-e", code],
      { cwd: process.cwd() },
    );
    expect(JSON.parse(stdout)).toEqual(fakeEmbedding("Customer asked for a refund of order 42", 64));
  });

  it("are lexical: texts sharing words are closer than unrelated texts", async () => {
    const [base, similar, unrelated] = await models.embed("embed", [
      "the customer asked for a refund of the broken laptop",
      "customer wants a refund for a broken laptop",
      "quarterly revenue grew in european markets",
    ]);
    const near = cosine(base as number[], similar as number[]);
    const far = cosine(base as number[], unrelated as number[]);
    expect(near).toBeGreaterThan(0.4);
    expect(near).toBeGreaterThan(far + 0.3);
  });

  it("refuse an alias that is not an embedding alias", async () => {
    await expect(models.embed("chat", ["x"])).rejects.toThrow(/not an embedding alias/);
    await expect(models.embed("nope", ["x"])).rejects.toThrow(/no alias "nope"/);
  });
});

describe("fake rerank", () => {
  const models = createModels(conf, { endpoints: [] });

  it("judges the share of the query's distinct words a document contains", async () => {
    const result = await models.rerank("chat", {
      query: "Card declined, card!",
      documents: ["The card was DECLINED", "card expired", "refund issued", ""],
    });
    expect(result).toEqual({ relevance: [1, 0.5, 0, 0], target: "local:scripted" });
  });

  it("gives 0 to every document when the query has no words", async () => {
    const result = await models.rerank("chat", { query: "?!", documents: ["anything"] });
    expect(result.relevance).toEqual([0]);
  });
});

describe("fake scores", () => {
  const models = createModels(conf, { endpoints: [] });

  it("lie within the scale and are stable", async () => {
    const texts = ["urgent outage", "thanks!", "", "ordinary update about shipping"];
    for (const text of texts) {
      const a = await models.score("chat", { prompt: "How urgent?", text, scale: [0, 10] });
      const b = await models.score("chat", { prompt: "How urgent?", text, scale: [0, 10] });
      expect(a).toBe(b);
      expect(a).toBeGreaterThanOrEqual(0);
      expect(a).toBeLessThanOrEqual(10);
    }
    const negative = await models.score("chat", { prompt: "p", text: "urgent outage", scale: [-1, 1] });
    expect(negative).toBeGreaterThanOrEqual(-1);
    expect(negative).toBeLessThanOrEqual(1);
  });

  it("differ between texts", async () => {
    const scores = await Promise.all(
      ["a", "b", "c", "d"].map((text) => models.score("chat", { prompt: "p", text, scale: [0, 1] })),
    );
    expect(new Set(scores).size).toBe(4);
  });
});

describe("fake JSON tasks", () => {
  const schema = {
    type: "object",
    required: ["summary"],
    properties: { summary: { type: "string" } },
    additionalProperties: false,
  };

  it("answer from the script by task id", async () => {
    const models = createModels(conf, { endpoints: [], fakeScript: { summarize: { summary: "all good" } } });
    const result = await models.json("chat", {
      task: "summarize",
      prompt: "Summarize.",
      input: [1, 2],
      schema,
    });
    expect(result.value).toEqual({ summary: "all good" });
    expect(result.usage.estimated).toBe(true);
    expect(result.usage.prompt_tokens).toBeGreaterThan(0);
    expect(result.usage.completion_tokens).toBeGreaterThan(0);
  });

  it("answer from the script by prompt hash before task id", async () => {
    const prompt = "Summarize the customer's week.";
    expect(promptKey(prompt)).toMatch(/^sha256:[0-9a-f]{64}$/);
    const models = createModels(conf, {
      endpoints: [],
      fakeScript: { [promptKey(prompt)]: { summary: "by prompt" }, summarize: { summary: "by task" } },
    });
    const byPrompt = await models.json("chat", { task: "summarize", prompt, input: {}, schema });
    expect(byPrompt.value).toEqual({ summary: "by prompt" });
    const byTask = await models.json("chat", { task: "summarize", prompt: "other", input: {}, schema });
    expect(byTask.value).toEqual({ summary: "by task" });
  });

  it("return a copy: callers cannot change the script", async () => {
    const models = createModels(conf, { endpoints: [], fakeScript: { t: { summary: "x" } } });
    const first = await models.json("chat", { task: "t", prompt: "p", input: {}, schema });
    (first.value as { summary: string }).summary = "changed";
    const second = await models.json("chat", { task: "t", prompt: "p", input: {}, schema });
    expect(second.value).toEqual({ summary: "x" });
  });

  it("refuse a scripted value that does not satisfy the schema", async () => {
    const models = createModels(conf, { endpoints: [], fakeScript: { t: { summary: 42 } } });
    const error = await models.json("chat", { task: "t", prompt: "p", input: {}, schema }).catch((e) => e);
    expect(error).toBeInstanceOf(ModelOutputError);
    expect(error).toMatchObject({ alias: "chat", target: "local:scripted" });
    expect(error.message).toMatch(/does not satisfy its schema/);
  });

  it("fail with ModelOutputError without a script entry (POST /answer answers 502 answer_model)", async () => {
    const models = createModels(conf, { endpoints: [] });
    const error = await models
      .json("chat", { task: "answer", prompt: "Answer from the evidence.", input: {}, schema })
      .catch((e) => e);
    expect(error).toBeInstanceOf(ModelOutputError);
    expect(error.message).toMatch(/no scripted output for task "answer"/);
    const app = modelAppError(error, "answer");
    expect(app).toBeInstanceOf(AppError);
    expect(app).toMatchObject({ code: "answer_model", status: 502 });
  });
});

describe("fake scripts from YAML", () => {
  it("load a mapping from a file", async () => {
    const dir = await mkdtemp(join(tmpdir(), "engram-script-"));
    try {
      const path = join(dir, "script.yaml");
      await writeFile(path, `summarize:\n  summary: from yaml\n"sha256:${"a".repeat(64)}":\n  - 1\n`);
      expect(await loadFakeScript(path)).toEqual({
        summarize: { summary: "from yaml" },
        [`sha256:${"a".repeat(64)}`]: [1],
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("treat an empty file as an empty script and refuse a non-mapping", () => {
    expect(parseFakeScript("")).toEqual({});
    expect(() => parseFakeScript("- a\n- b\n", "s.yaml")).toThrow(/s.yaml: must be a mapping/);
    expect(() => parseFakeScript("a: [", "s.yaml")).toThrow(/s.yaml/);
  });
});
