import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { createTestApp, type TestApp } from "../support/app.js";
import { exampleRequest } from "../support/example-catalog.js";

describe("the example package and discovery", () => {
  let t: TestApp;
  let headers: { authorization: string };
  let published: any;
  const get = async (url: string) => {
    const res = await t.app.inject({ url, headers });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };

  beforeAll(async () => {
    t = await createTestApp();
    ({ headers } = await t.workspace("discovery"));
    const res = await t.app.inject({
      method: "POST",
      url: "/catalog",
      headers,
      payload: await exampleRequest(),
    });
    expect(res.statusCode, res.body).toBe(200);
    published = res.json();
  });
  afterAll(() => t.close());

  it("publishes cleanly", () => {
    expect(published).toMatchObject({ package: "support@1.0.0", loaded: true, rewritten_records: 0 });
  });

  it("republishes idempotently with the same hash", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: "/catalog",
      headers,
      payload: await exampleRequest(),
    });
    expect(res.json().catalog_hash).toBe(published.catalog_hash);
  });

  it("answers 409 no_catalog on discovery before a publish", async () => {
    const other = await t.workspace("discovery-empty");
    for (const url of ["/collections", "/processors", "/triggers", "/views", "/artifacts", "/rank/schema"]) {
      const res = await t.app.inject({ url, headers: other.headers });
      expect(res.statusCode).toBe(409);
      expect(res.json().code).toBe("no_catalog");
    }
  });

  it("GET /collections lists normalized summaries with bindings and hashes", async () => {
    const { collections } = await get("/collections");
    const events = collections.find((c: any) => c.name === "customer_events");
    expect(events).toMatchObject({
      version: 1,
      active: true,
      mode: "event",
      answerable: true,
      bindings: { search_profile: "support", required_processors: ["embedder", "urgency"] },
    });
    expect(events.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(events.fields.priority).toEqual({
      path: "priority",
      type: "integer",
      filter: true,
      sort: true,
      return: true,
      project: false,
    });
    expect(events.bindings.capabilities).toEqual(["recent", "structured", "text", "vector"]);
  });

  it("GET /processors lists processors and derivations without prompts", async () => {
    const { processors } = await get("/processors");
    expect(processors.map((p: any) => p.name).sort()).toEqual(["customer_profile", "embedder", "urgency"]);
    const urgency = processors.find((p: any) => p.name === "urgency");
    expect(urgency).toMatchObject({
      kind: "score",
      scale: [0, 1],
      input: { collections: ["customer_events"] },
    });
    const derivation = processors.find((p: any) => p.name === "customer_profile");
    expect(derivation.tasks).toEqual([{ id: "summarize", use: "llm" }]);
    expect(JSON.stringify(processors)).not.toContain("Cite");
    expect(JSON.stringify(processors)).not.toContain("Rate how urgent");
  });

  it("GET /triggers names the derivations each queues", async () => {
    const { triggers } = await get("/triggers");
    expect(triggers).toHaveLength(1);
    expect(triggers[0]).toMatchObject({
      name: "customer_profile.default",
      derivations: ["customer_profile"],
      accumulator: { metric: "urgency", threshold: 2, cooldown_s: 300 },
    });
  });

  it("GET /views lists every loaded view with the spec's discovery fields", async () => {
    const { views } = await get("/views");
    expect(views.map((v: any) => v.name).sort()).toEqual([
      "customer_history",
      "orphan_pages",
      "topic_graph",
      "urgent_events",
    ]);
    for (const view of views) {
      expect(Object.keys(view).sort()).toEqual(
        [
          "active",
          "collections",
          "hash",
          "input_schema",
          "kind",
          "name",
          "parameters",
          "profiles",
          "required_capabilities",
          "version",
        ].sort(),
      );
      expect(view.input_schema).toMatchObject({ type: "object", additionalProperties: false });
      expect(view.hash).toMatch(/^[0-9a-f]{64}$/);
    }
    const history = views.find((v: any) => v.name === "customer_history");
    expect(history.input_schema.required.sort()).toEqual(["customer", "question"]);
    expect(history.parameters.limit).toEqual({ type: "integer", required: false, default: 10 });
    expect(history.collections).toEqual(["customer_events", "customer_facts"]);
    expect(history.profiles).toEqual(["support"]);
    const graph = views.find((v: any) => v.name === "topic_graph");
    expect(graph.kind).toBe("graph");
    expect(Object.keys(graph.input_schema.properties).sort()).toEqual([
      "depth",
      "direction",
      "limit",
      "predicates",
      "seed",
    ]);
  });

  it("GET /artifacts lists loaded artifacts", async () => {
    const { artifacts } = await get("/artifacts");
    expect(artifacts).toHaveLength(1);
    expect(artifacts[0]).toMatchObject({
      name: "support_brief",
      version: 1,
      active: true,
      kind: "prompt",
      lifecycle: "live",
    });
    expect(artifacts[0].hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("GET /rank/schema shows the grammar, score contract, defaults and backend", async () => {
    const schema = await get("/rank/schema");
    expect(schema.grammar.operators.map((o: any) => o.operator)).toEqual(
      expect.arrayContaining([
        "similarity",
        "text_match",
        "score",
        "age_hours",
        "normalize",
        "saturate",
        "decay",
      ]),
    );
    expect(schema.score_contract).toMatchObject({
      normalization: "min_max",
      native_score_field: "rank_score",
    });
    expect(schema.defaults.candidates).toBe(200);
    expect(schema.defaults.formulas.recent).toEqual([
      "decay",
      ["age_hours", "occurred_at"],
      { midpoint: 24, exponent: 1 },
    ]);
    // The example package's conf/rank.yaml replaces hybrid's formula only (docs/catalog.md).
    const rankYaml = parse((await exampleRequest()).files["conf/rank.yaml"] as string);
    expect(schema.defaults.formulas.hybrid).toEqual(rankYaml.formulas.hybrid);
    expect(schema.defaults.formulas.hybrid[1][0]).toEqual(["product", 0.6, ["text_match"]]);
    expect(schema.defaults.formulas.text[1][0]).toEqual(["normalize", ["text_match"]]);
    expect(schema.scores).toEqual([{ name: "urgency", processor: "urgency", scale: [0, 1] }]);
    expect(schema.backend.layout).toMatch(/^(pglite|postgres|citus)\/(hnsw|exact)$/);
  });

  it("GET /rank/schema shows each profile's text_rank and documents BM25", async () => {
    const schema = await get("/rank/schema");
    expect(schema.backend.profiles).toEqual([
      {
        name: "support",
        engine: "postgres",
        text_config: "english",
        text_rank: { kind: "bm25", k1: 1.2, b: 0.75 },
        embedding: "embed",
        capabilities: ["recent", "structured", "text", "vector"],
      },
    ]);
    const textMatch = schema.grammar.operators.find((o: any) => o.operator === "text_match");
    expect(textMatch.meaning).toMatch(/BM25.*0 to 1.*ts_rank_cd, 0 upward/);
    expect(schema.text_rank).toMatchObject({
      kinds: ["bm25", "ts_rank_cd"],
      default: { kind: "bm25", k1: 1.2, b: 0.75 },
      bm25: {
        idf: "ln(1 + (N - df + 0.5) / (df + 0.5))",
        parameters: { k1: { default: 1.2, min: 0, max: 10 }, b: { default: 0.75, min: 0, max: 1 } },
        range: [0, 1],
      },
      ts_rank_cd: { range: [0, null] },
    });
    expect(schema.text_rank.bm25.normalization).toContain("sum idf(t) * (k1 + 1)");
    expect(schema.text_rank.bm25.terms).toHaveProperty("avgdl");
    expect(schema.text_rank.bm25.phrase).toMatch(/quoted phrase is one term/);
    expect(schema.text_rank.bm25.statistics).toMatch(/per workspace and text configuration/);
    expect(schema.text_rank.ties).toMatch(/newest seq first/);
  });

  it("a profile's text_rank reaches GET /rank/schema and GET /catalog/definitions", async () => {
    const other = await t.workspace("discovery-text-rank");
    const publish = async (textRank: string) => {
      const request = await exampleRequest();
      request.files["search_profiles/support.yaml"] = (
        request.files["search_profiles/support.yaml"] as string
      ).replace("text_config: english", `text_config: english\n    text_rank: ${textRank}`);
      const res = await t.app.inject({
        method: "POST",
        url: "/catalog",
        headers: other.headers,
        payload: request,
      });
      expect(res.statusCode, res.body).toBe(200);
      const ranks = await t.app.inject({ url: "/rank/schema", headers: other.headers });
      const definitions = await t.app.inject({ url: "/catalog/definitions", headers: other.headers });
      return {
        schema: ranks.json().backend.profiles[0].text_rank,
        definition: definitions.json().definitions["search_profiles:support"].text_rank,
      };
    };
    const bm25 = { kind: "bm25", k1: 0.9, b: 0.4 };
    expect(await publish("{ kind: bm25, k1: 0.9, b: 0.4 }")).toEqual({ schema: bm25, definition: bm25 });
    const tsRankCd = { kind: "ts_rank_cd" };
    expect(await publish("ts_rank_cd")).toEqual({ schema: tsRankCd, definition: tsRankCd });
  });

  it("refuses a bad text_rank at its path", async () => {
    const request = await exampleRequest();
    request.files["search_profiles/support.yaml"] = (
      request.files["search_profiles/support.yaml"] as string
    ).replace("text_config: english", "text_config: english\n    text_rank: { kind: bm25, b: 2 }");
    const res = await t.app.inject({ method: "POST", url: "/catalog", headers, payload: request });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({
      code: "definition_invalid",
      file: "search_profiles/support.yaml",
      path: "search_profiles.0.text_rank.b",
    });
  });

  it("a second version adding an optional property publishes in place", async () => {
    const request = await exampleRequest();
    request.files["collections/support.yaml"] = (request.files["collections/support.yaml"] as string).replace(
      "        tags: { type: array, items: { type: string } }\n",
      "        tags: { type: array, items: { type: string } }\n        sentiment: { type: string }\n",
    );
    request.files["packages/support.yaml"] = (request.files["packages/support.yaml"] as string).replace(
      "version: 1.0.0",
      "version: 1.1.0",
    );
    const res = await t.app.inject({
      method: "POST",
      url: "/catalog",
      headers,
      payload: { package: "support@1.1.0", files: request.files },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect((await get("/catalog")).package).toBe("support@1.1.0");
  });
});
