import { describe, expect, it } from "vitest";
import { DEFAULT_BM25, loadCatalog } from "../../src/catalog/index.js";
import {
  COLLECTIONS_YAML,
  MINIMAL_PACKAGE,
  MODELS_YAML,
  minimalFiles,
  PACKAGE_YAML,
  PROFILES_YAML,
} from "../support/catalog-files.js";
import { refusal } from "../support/refusal.js";

const NOTES_HEAD = `collections:
  - name: notes
    version: 1
    active: true
    mode: event
`;

/** A collections file with one collection "notes" whose body after the head is given. */
function notes(body: string): Record<string, string> {
  return minimalFiles({
    "collections/main.yaml": NOTES_HEAD + body,
    "packages/demo-pack.yaml": PACKAGE_YAML.replace("[notes@1, facts@1]", "[notes@1]"),
  });
}

const OK_BODY = `    schema: { type: object }
    search_profile: main
`;

describe("collection definitions", () => {
  it("load with defaults filled", () => {
    const loaded = loadCatalog(notes(OK_BODY), MINIMAL_PACKAGE);
    expect(loaded.index.collections.get("notes@1")?.def).toMatchObject({
      required_processors: [],
      answerable: false,
      fields: {},
    });
  });

  it.each([
    ["an unknown field", `${OK_BODY}    colour: red\n`, "collections.0.colour"],
    ["a missing schema", "    search_profile: main\n", "collections.0.schema"],
    ["a missing search_profile", "    schema: { type: object }\n", "collections.0.search_profile"],
    [
      "a schema that is not JSON Schema",
      "    schema: { type: 12 }\n    search_profile: main\n",
      "collections.0.schema",
    ],
    [
      "a non-object schema type",
      "    schema: { type: string }\n    search_profile: main\n",
      "collections.0.schema.type",
    ],
    ["a non-boolean answerable", `${OK_BODY}    answerable: yes please\n`, "collections.0.answerable"],
    [
      "a field without a path",
      `${OK_BODY}    fields:\n      topic: { type: string }\n`,
      "collections.0.fields.topic.path",
    ],
    [
      "a field with an unknown type",
      `${OK_BODY}    fields:\n      topic: { path: topic, type: text }\n`,
      "collections.0.fields.topic.type",
    ],
    [
      "a field with a bad path",
      `${OK_BODY}    fields:\n      topic: { path: "a..b", type: string }\n`,
      "collections.0.fields.topic.path",
    ],
    [
      "a field with an unknown flag",
      `${OK_BODY}    fields:\n      topic: { path: topic, type: string, index: true }\n`,
      "collections.0.fields.topic.index",
    ],
    [
      "a non-boolean flag",
      `${OK_BODY}    fields:\n      topic: { path: topic, type: string, filter: 1 }\n`,
      "collections.0.fields.topic.filter",
    ],
    [
      "duplicate required processors",
      `${OK_BODY}    required_processors: [a, a]\n`,
      "collections.0.required_processors.1",
    ],
  ])("refuse %s", (_name, body, path) => {
    const r = refusal(notes(body));
    expect(r.status).toBe(422);
    expect(r.file).toBe("collections/main.yaml");
    expect(r.path).toBe(path);
  });

  it.each([
    ["a bad mode", "mode: event", "mode: log", "collections.0.mode"],
    ["a zero version", "version: 1", "version: 0", "collections.0.version"],
    ["a fractional version", "version: 1", "version: 1.5", "collections.0.version"],
    ["an upper-case name", "name: notes", "name: Notes", "collections.0.name"],
    ["a reserved name", "name: notes", "name: _system", "collections.0.name"],
  ])("refuse %s", (_name, from, to, path) => {
    const files = notes(OK_BODY);
    files["collections/main.yaml"] = (files["collections/main.yaml"] as string).replace(from, to);
    expect(refusal(files)).toMatchObject({ code: "definition_invalid", path });
  });
});

describe("search profiles", () => {
  it("default to the postgres engine and english text", () => {
    const loaded = loadCatalog(
      minimalFiles({ "search_profiles/main.yaml": "search_profiles:\n  - name: main\n" }),
      MINIMAL_PACKAGE,
    );
    expect(loaded.index.searchProfiles.get("main")?.def).toEqual({
      name: "main",
      engine: "postgres",
      embedding: null,
      text_config: "english",
      text_rank: { kind: "bm25", k1: 1.2, b: 0.75 },
    });
  });

  it.each([
    [
      "an unknown engine",
      PROFILES_YAML.replace("engine: postgres", "engine: elastic"),
      "search_profiles.0.engine",
      "definition_invalid",
    ],
    [
      "an unknown embedding alias",
      PROFILES_YAML.replace("embedding: embed", "embedding: nope"),
      "search_profiles.0.embedding",
      "definition_unresolved",
    ],
    [
      "a model alias as embedding",
      PROFILES_YAML.replace("embedding: embed", "embedding: chat"),
      "search_profiles.0.embedding",
      "definition_invalid",
    ],
  ])("refuse %s", (_name, yaml, path, code) => {
    expect(refusal(minimalFiles({ "search_profiles/main.yaml": yaml }))).toMatchObject({
      code,
      file: "search_profiles/main.yaml",
      path,
    });
  });
});

describe("search profile text_rank", () => {
  /** The minimal catalog with profile main's text_rank line(s) after text_config. */
  const withTextRank = (line: string) =>
    minimalFiles({
      "search_profiles/main.yaml": PROFILES_YAML.replace(
        "text_config: english",
        `text_config: english\n    ${line}`,
      ),
    });
  const textRank = (line: string) =>
    loadCatalog(withTextRank(line), MINIMAL_PACKAGE).index.searchProfiles.get("main")?.def.text_rank;

  it("defaults to BM25 with k1 1.2 and b 0.75", () => {
    const loaded = loadCatalog(minimalFiles(), MINIMAL_PACKAGE);
    expect(loaded.index.searchProfiles.get("main")?.def.text_rank).toEqual({
      kind: "bm25",
      k1: 1.2,
      b: 0.75,
    });
    expect(DEFAULT_BM25).toEqual({ kind: "bm25", k1: 1.2, b: 0.75 });
  });

  it.each([
    ["the string ts_rank_cd", "text_rank: ts_rank_cd", { kind: "ts_rank_cd" }],
    ["the string bm25 (defaults)", "text_rank: bm25", { kind: "bm25", k1: 1.2, b: 0.75 }],
    ["a bm25 mapping without parameters", "text_rank: { kind: bm25 }", { kind: "bm25", k1: 1.2, b: 0.75 }],
    [
      "a bm25 mapping with k1 and b",
      "text_rank: { kind: bm25, k1: 0.9, b: 0.4 }",
      { kind: "bm25", k1: 0.9, b: 0.4 },
    ],
    ["a bm25 mapping with k1 only", "text_rank: { kind: bm25, k1: 2 }", { kind: "bm25", k1: 2, b: 0.75 }],
    ["a bm25 mapping with b only", "text_rank: { kind: bm25, b: 1 }", { kind: "bm25", k1: 1.2, b: 1 }],
    ["the bounds k1 0 and b 0", "text_rank: { kind: bm25, k1: 0, b: 0 }", { kind: "bm25", k1: 0, b: 0 }],
    ["the bound k1 10", "text_rank: { kind: bm25, k1: 10 }", { kind: "bm25", k1: 10, b: 0.75 }],
    ["a ts_rank_cd mapping", "text_rank: { kind: ts_rank_cd }", { kind: "ts_rank_cd" }],
    ["a block mapping", "text_rank:\n      kind: bm25\n      k1: 1.5", { kind: "bm25", k1: 1.5, b: 0.75 }],
  ])("accepts %s", (_name, line, expected) => {
    expect(textRank(line)).toEqual(expected);
  });

  it("changes the profile's definition hash with its text_rank", () => {
    const hash = (files: Record<string, string>) =>
      loadCatalog(files, MINIMAL_PACKAGE).hashes["search_profiles:main"];
    expect(hash(withTextRank("text_rank: bm25"))).toBe(hash(minimalFiles()));
    expect(hash(withTextRank("text_rank: ts_rank_cd"))).not.toBe(hash(minimalFiles()));
    expect(hash(withTextRank("text_rank: { kind: bm25, k1: 2 }"))).not.toBe(hash(minimalFiles()));
  });

  it.each([
    [
      "an unknown kind string",
      "text_rank: tfidf",
      "search_profiles.0.text_rank",
      /expected one of bm25, ts_rank_cd/,
    ],
    [
      "an upper-case kind",
      "text_rank: BM25",
      "search_profiles.0.text_rank",
      /expected one of bm25, ts_rank_cd/,
    ],
    ["null", "text_rank: null", "search_profiles.0.text_rank", /expected bm25, ts_rank_cd or a mapping/],
    ["a number", "text_rank: 1.2", "search_profiles.0.text_rank", /expected bm25, ts_rank_cd or a mapping/],
    ["a list", "text_rank: [bm25]", "search_profiles.0.text_rank", /expected bm25, ts_rank_cd or a mapping/],
    ["a mapping without kind", "text_rank: { k1: 1.2 }", "search_profiles.0.text_rank.kind", /is required/],
    [
      "a mapping with an unknown kind",
      "text_rank: { kind: okapi }",
      "search_profiles.0.text_rank.kind",
      /expected one of/,
    ],
    [
      "an unknown key",
      "text_rank: { kind: bm25, k3: 8 }",
      "search_profiles.0.text_rank.k3",
      /unknown field "k3"/,
    ],
    ["a negative k1", "text_rank: { kind: bm25, k1: -0.1 }", "search_profiles.0.text_rank.k1", /at least 0/],
    ["a k1 above 10", "text_rank: { kind: bm25, k1: 10.5 }", "search_profiles.0.text_rank.k1", /at most 10/],
    [
      "an infinite k1",
      "text_rank: { kind: bm25, k1: .inf }",
      "search_profiles.0.text_rank.k1",
      /finite number/,
    ],
    ["a NaN k1", "text_rank: { kind: bm25, k1: .nan }", "search_profiles.0.text_rank.k1", /finite number/],
    [
      "a string k1",
      'text_rank: { kind: bm25, k1: "1.2" }',
      "search_profiles.0.text_rank.k1",
      /expected a number/,
    ],
    ["a null b", "text_rank: { kind: bm25, b: null }", "search_profiles.0.text_rank.b", /expected a number/],
    ["a negative b", "text_rank: { kind: bm25, b: -0.5 }", "search_profiles.0.text_rank.b", /at least 0/],
    ["a b above 1", "text_rank: { kind: bm25, b: 1.5 }", "search_profiles.0.text_rank.b", /at most 1/],
    [
      "k1 under ts_rank_cd",
      "text_rank: { kind: ts_rank_cd, k1: 1.2 }",
      "search_profiles.0.text_rank.k1",
      /bm25 only/,
    ],
    [
      "b under ts_rank_cd",
      "text_rank: { kind: ts_rank_cd, b: 0.75 }",
      "search_profiles.0.text_rank.b",
      /bm25 only/,
    ],
  ])("refuses %s", (_name, line, path, detail) => {
    const r = refusal(withTextRank(line));
    expect(r).toMatchObject({
      status: 422,
      code: "definition_invalid",
      file: "search_profiles/main.yaml",
      path,
    });
    expect(r.detail).toMatch(detail);
  });
});

describe("conf/models.yaml", () => {
  it("fills provider defaults", () => {
    const loaded = loadCatalog(minimalFiles(), MINIMAL_PACKAGE);
    expect(loaded.index.models.def.providers.local).toEqual({
      adapter: "fake",
      base_url: null,
      api_key_env: null,
      token_limit_field: "max_completion_tokens",
      json_capability: "json_schema",
      json_schema_strict: true,
    });
    expect(loaded.index.models.def.aliases.embed).toMatchObject({ kind: "embedding", dimensions: 64 });
    expect(loaded.index.models.def.aliases.chat).toMatchObject({
      kind: "model",
      targets: ["local:fake-chat"],
    });
  });

  it("accepts defaults.answer naming a model alias", () => {
    const files = minimalFiles({
      "conf/models.yaml": MODELS_YAML.replace("derivation: chat", "derivation: chat\n  answer: chat"),
    });
    expect(loadCatalog(files, MINIMAL_PACKAGE).index.models.def.defaults).toEqual({
      derivation: "chat",
      answer: "chat",
    });
  });

  it.each([
    [
      "an unknown adapter",
      MODELS_YAML.replace("adapter: fake", "adapter: anthropic"),
      "providers.local.adapter",
      "definition_invalid",
    ],
    [
      "a bad json_capability",
      MODELS_YAML.replace("adapter: fake", "adapter: fake\n    json_capability: xml"),
      "providers.local.json_capability",
      "definition_invalid",
    ],
    [
      "a bad token_limit_field",
      MODELS_YAML.replace("adapter: fake", "adapter: fake\n    token_limit_field: tokens"),
      "providers.local.token_limit_field",
      "definition_invalid",
    ],
    [
      "a lowercase api_key_env",
      MODELS_YAML.replace("adapter: fake", "adapter: fake\n    api_key_env: my_key"),
      "providers.local.api_key_env",
      "definition_invalid",
    ],
    [
      "a base_url that is not http",
      MODELS_YAML.replace("adapter: fake", "adapter: fake\n    base_url: ftp://x"),
      "providers.local.base_url",
      "definition_invalid",
    ],
    [
      "a target without provider",
      MODELS_YAML.replace('["local:fake-chat"]', '["fake-chat"]'),
      "aliases.chat.targets.0",
      "definition_invalid",
    ],
    [
      "a target on an unknown provider",
      MODELS_YAML.replace('["local:fake-chat"]', '["remote:x"]'),
      "aliases.chat.targets.0",
      "definition_unresolved",
    ],
    [
      "zero dimensions",
      MODELS_YAML.replace("dimensions: 64", "dimensions: 0"),
      "aliases.embed.dimensions",
      "definition_invalid",
    ],
    [
      "an embedding alias without space",
      MODELS_YAML.replace("    space: fake-64-v1\n", ""),
      "aliases.embed.space",
      "definition_invalid",
    ],
    [
      "no embedding alias",
      MODELS_YAML.replace(/ {2}embed:[\s\S]*?space: fake-64-v1\n/, ""),
      "aliases",
      "definition_invalid",
    ],
    [
      "a default naming nothing",
      MODELS_YAML.replace("derivation: chat", "derivation: nope"),
      "defaults.derivation",
      "definition_unresolved",
    ],
    [
      "a default naming an embedding alias",
      MODELS_YAML.replace("derivation: chat", "derivation: embed"),
      "defaults.derivation",
      "definition_invalid",
    ],
    [
      "an answer default naming nothing",
      MODELS_YAML.replace("derivation: chat", "derivation: chat\n  answer: nope"),
      "defaults.answer",
      "definition_unresolved",
    ],
    [
      "an answer default naming an embedding alias",
      MODELS_YAML.replace("derivation: chat", "derivation: chat\n  answer: embed"),
      "defaults.answer",
      "definition_invalid",
    ],
    ["an unknown top-level key", `${MODELS_YAML}extra: 1\n`, "extra", "definition_invalid"],
    [
      "a built-in member as provider",
      MODELS_YAML.replace("provider: local", "provider: constructor"),
      "aliases.embed.provider",
      "definition_unresolved",
    ],
    [
      "an embedding alias without dimensions",
      MODELS_YAML.replace("    dimensions: 64\n", ""),
      "aliases.embed.dimensions",
      "definition_invalid",
    ],
  ])("refuse %s", (_name, yaml, path, code) => {
    expect(refusal(minimalFiles({ "conf/models.yaml": yaml }))).toMatchObject({
      code,
      file: "conf/models.yaml",
      path,
    });
  });
});

describe("package manifests", () => {
  const manifest = (yaml: string) => minimalFiles({ "packages/demo-pack.yaml": yaml });

  it.each([
    ["an upper-case name", PACKAGE_YAML.replace("name: demo-pack", "name: Demo"), "name"],
    ["a name over 64 characters", PACKAGE_YAML.replace("name: demo-pack", `name: ${"a".repeat(65)}`), "name"],
    ["a version that is not semver", PACKAGE_YAML.replace("version: 1.0.0", "version: '1.0'"), "version"],
    [
      "an unversioned reference",
      PACKAGE_YAML.replace("[notes@1, facts@1]", "[notes, facts@1]"),
      "collections.0",
    ],
    ["a duplicate entry", PACKAGE_YAML.replace("[notes@1, facts@1]", "[notes@1, notes@1]"), "collections.1"],
    [
      "a profile both required and optional",
      `${PACKAGE_YAML}optional_search_profiles: [main]\n`,
      "optional_search_profiles.0",
    ],
    ["an unknown field", `${PACKAGE_YAML}owner: me\n`, "owner"],
  ])("refuse %s", (_name, yaml, path) => {
    expect(refusal(manifest(yaml))).toMatchObject({ file: "packages/demo-pack.yaml", path });
  });

  it("accepts a pre-release version", () => {
    const files = manifest(PACKAGE_YAML.replace("1.0.0", "1.1.0-rc.1"));
    expect(loadCatalog(files, "demo-pack@1.1.0-rc.1").package).toBe("demo-pack@1.1.0-rc.1");
  });

  describe("retentions", () => {
    const policy = (fields: string) => manifest(`${PACKAGE_YAML}retentions:\n  - ${fields}\n`);

    it("load with max_pages defaulting to 25", () => {
      const loaded = loadCatalog(
        policy("{ name: old, collection: facts@1, after_days: 30, cron: '0 3 * * *' }"),
        MINIMAL_PACKAGE,
      );
      expect(loaded.index.manifest.def.retentions).toEqual([
        { name: "old", collection: "facts@1", after_days: 30, cron: "0 3 * * *", max_pages: 25 },
      ]);
    });

    it.each([
      [
        "after_days 0",
        "{ name: r, collection: facts@1, after_days: 0, cron: '0 3 * * *' }",
        "retentions.0.after_days",
      ],
      [
        "after_days 3651",
        "{ name: r, collection: facts@1, after_days: 3651, cron: '0 3 * * *' }",
        "retentions.0.after_days",
      ],
      [
        "max_pages 101",
        "{ name: r, collection: facts@1, after_days: 1, cron: '0 3 * * *', max_pages: 101 }",
        "retentions.0.max_pages",
      ],
      [
        "a bad cron",
        "{ name: r, collection: facts@1, after_days: 1, cron: 'every day' }",
        "retentions.0.cron",
      ],
      [
        "an unlisted collection",
        "{ name: r, collection: other@1, after_days: 1, cron: '0 3 * * *' }",
        "retentions.0.collection",
      ],
      [
        "an event collection",
        "{ name: r, collection: notes@1, after_days: 1, cron: '0 3 * * *' }",
        "retentions.0.collection",
      ],
      [
        "an upper-case name",
        "{ name: R, collection: facts@1, after_days: 1, cron: '0 3 * * *' }",
        "retentions.0.name",
      ],
    ])("refuse %s", (_name, fields, path) => {
      expect(refusal(policy(fields))).toMatchObject({ file: "packages/demo-pack.yaml", path });
    });
  });
});

describe("collection fixtures", () => {
  it("the shared fixture is valid", () => {
    expect(() =>
      loadCatalog(minimalFiles({ "collections/main.yaml": COLLECTIONS_YAML }), MINIMAL_PACKAGE),
    ).not.toThrow();
  });
});
