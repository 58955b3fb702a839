import { describe, expect, it } from "vitest";
import { linkProcessor, parseProcessor } from "../../src/catalog/families/processors.js";
import {
  embeddingProcessor,
  expectDefinitionError,
  jsonProcessor,
  makeIndex,
  scoreProcessor,
  src,
} from "../support/catalog-families-fixture.js";

const FILE = "processors/enrich.yaml";
const at = (value: unknown) => src(FILE, "processors", value);
const parse = (value: unknown) => parseProcessor(at(value));
const link = (value: unknown) => {
  const s = at(value);
  linkProcessor(parseProcessor(s), s, makeIndex());
};

describe("processors: parse", () => {
  it("normalizes the three kinds", () => {
    expect(parse(scoreProcessor())).toMatchObject({
      kind: "score",
      scale: [0, 1],
      default: 0,
      output_schema: null,
    });
    expect(parse(embeddingProcessor())).toMatchObject({
      kind: "embedding",
      source: "llm",
      prompt: null,
      scale: null,
    });
    expect(parse(jsonProcessor())).toMatchObject({ kind: "json", default: [], scale: null });
  });

  it("refuses an unknown field", () => {
    expectDefinitionError(
      () => parse({ ...scoreProcessor(), extra: 1 }),
      "definition_invalid",
      "processors.0.extra",
      FILE,
    );
  });

  it("refuses a name that is not a lowercase identifier", () => {
    expectDefinitionError(
      () => parse({ ...scoreProcessor(), name: "Importance" }),
      "definition_invalid",
      "processors.0.name",
    );
  });

  it("refuses an unknown kind", () => {
    expectDefinitionError(
      () => parse({ ...scoreProcessor(), kind: "vector" }),
      "definition_invalid",
      "processors.0.kind",
    );
  });

  it("refuses a source other than llm", () => {
    expectDefinitionError(
      () => parse({ ...scoreProcessor(), source: "rules" }),
      "definition_invalid",
      "processors.0.source",
    );
  });

  it.each([["input"], ["model"], ["prompt"], ["scale"], ["default"]])(
    "requires %s on a score processor",
    (key) => {
      const value: Record<string, unknown> = scoreProcessor();
      delete value[key];
      expectDefinitionError(() => parse(value), "definition_invalid", `processors.0.${key}`);
    },
  );

  it.each([["prompt"], ["output_schema"]])("requires %s on a json processor", (key) => {
    const value: Record<string, unknown> = jsonProcessor();
    delete value[key];
    expectDefinitionError(() => parse(value), "definition_invalid", `processors.0.${key}`);
  });

  it.each([
    ["prompt", "x"],
    ["scale", [0, 1]],
    ["default", 0],
    ["output_schema", { type: "object" }],
  ])("refuses %s on an embedding processor", (key, value) => {
    expectDefinitionError(
      () => parse({ ...embeddingProcessor(), [key]: value }),
      "definition_invalid",
      `processors.0.${key}`,
    );
  });

  it("refuses output_schema on a score processor and scale on a json one", () => {
    expectDefinitionError(
      () => parse({ ...scoreProcessor(), output_schema: {} }),
      "definition_invalid",
      "processors.0.output_schema",
    );
    expectDefinitionError(
      () => parse({ ...jsonProcessor(), scale: [0, 1] }),
      "definition_invalid",
      "processors.0.scale",
    );
  });

  it("refuses a scale that is not two numbers", () => {
    expectDefinitionError(
      () => parse({ ...scoreProcessor(), scale: [0, 1, 2] }),
      "definition_invalid",
      "processors.0.scale",
    );
    expectDefinitionError(
      () => parse({ ...scoreProcessor(), scale: [0, "1"] }),
      "definition_invalid",
      "processors.0.scale.1",
    );
  });

  it("refuses a scale whose min is not below its max", () => {
    expectDefinitionError(
      () => parse({ ...scoreProcessor(), scale: [1, 1] }),
      "definition_invalid",
      "processors.0.scale",
    );
  });

  it("refuses a score default outside the scale", () => {
    expectDefinitionError(
      () => parse({ ...scoreProcessor(), default: 2 }),
      "definition_invalid",
      "processors.0.default",
    );
  });

  it("refuses a json default that does not satisfy output_schema", () => {
    expectDefinitionError(
      () => parse({ ...jsonProcessor(), default: "x" }),
      "definition_invalid",
      "processors.0.default",
    );
  });

  it("refuses an invalid JSON Schema", () => {
    expectDefinitionError(
      () => parse({ ...jsonProcessor(), output_schema: { type: "objekt" } }),
      "definition_invalid",
      "processors.0.output_schema",
    );
  });

  it("loads the same schema with an $id twice", () => {
    const schema = { $id: "https://example.com/topics", type: "array" };
    parse({ ...jsonProcessor(), output_schema: schema, default: undefined });
    parse({ ...jsonProcessor(), output_schema: { ...schema }, default: undefined });
  });

  it("refuses empty and duplicate input collections", () => {
    expectDefinitionError(
      () => parse({ ...scoreProcessor(), input: { collections: [] } }),
      "definition_invalid",
      "processors.0.input.collections",
    );
    expectDefinitionError(
      () => parse({ ...scoreProcessor(), input: { collections: ["a", "a"] } }),
      "definition_duplicate",
      "processors.0.input.collections.1",
    );
  });

  it("refuses unknown input fields", () => {
    expectDefinitionError(
      () => parse({ ...scoreProcessor(), input: { collections: ["a"], types: ["x"] } }),
      "definition_invalid",
      "processors.0.input.types",
    );
  });
});

describe("processors: link", () => {
  it("refuses an unknown model alias", () => {
    expectDefinitionError(
      () => link({ ...scoreProcessor(), model: "huge" }),
      "definition_unresolved",
      "processors.0.model",
      FILE,
    );
  });

  it("refuses an Object member name as an unknown alias, not as an alias of the wrong kind", () => {
    expectDefinitionError(
      () => link({ ...embeddingProcessor(), model: "constructor" }),
      "definition_unresolved",
      "processors.0.model",
    );
  });

  it("refuses an embedding alias on a score processor", () => {
    expectDefinitionError(
      () => link({ ...scoreProcessor(), model: "embed" }),
      "definition_invalid",
      "processors.0.model",
    );
  });

  it("refuses a model alias on an embedding processor", () => {
    expectDefinitionError(
      () => link({ ...embeddingProcessor(), model: "fast" }),
      "definition_invalid",
      "processors.0.model",
    );
  });

  it("refuses an input collection defined nowhere", () => {
    expectDefinitionError(
      () => link({ ...scoreProcessor(), input: { collections: ["customer_events", "ghosts"] } }),
      "definition_unresolved",
      "processors.0.input.collections.1",
    );
  });

  it("refuses an input collection the package does not list", () => {
    expectDefinitionError(
      () => link({ ...scoreProcessor(), input: { collections: ["archive_events"] } }),
      "package_not_closed",
      "processors.0.input.collections.0",
    );
  });
});
