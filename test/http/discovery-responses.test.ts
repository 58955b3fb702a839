// The discovery routes and the catalog reads publish the exact bodies they answer: each reply
// validates against its /openapi.json schema, and the schema is closed (no any-object but the
// genuinely open parts: a collection's own content schema, the raw normalized definitions).
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.js";
import { exampleRequest, UNLISTED_VIEW } from "../support/example-catalog.js";

const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats.default(ajv);

// Beside the example package (collections, enrichment processors, a derivation with an inline
// trigger, search, graph and graph_orphans views, an artifact): a json processor, a standalone
// cron trigger, a ts_rank_cd search profile, and an unlisted view the prune report names.
const EXTRA_PROCESSOR = `processors:
  - name: tagger
    kind: json
    input: { collections: [customer_events] }
    model: chat
    prompt: Tag the event.
    output_schema:
      type: object
      properties: { tags: { type: array, items: { type: string } } }
      required: [tags]
    default: { tags: [] }
`;
const EXTRA_TRIGGER = `triggers:
  - name: nightly_profile
    derivation: customer_profile
    on: cron
    cron: "0 4 * * *"
    description: Refreshes profiles every night.
`;
const EXTRA_PROFILE = `search_profiles:
  - name: exact_words
    text_config: simple
    text_rank: ts_rank_cd
`;
const ROUTES = [
  "/collections",
  "/processors",
  "/triggers",
  "/views",
  "/artifacts",
  "/rank/schema",
  "/catalog/definitions",
  "/catalog/prune",
];

type Schema = Record<string, any>;

/** Where a schema accepts any object: type object with additionalProperties true or unstated. */
function openObjects(schema: Schema, path: string, out: string[] = []): string[] {
  const types = [schema.type].flat();
  if (types.includes("object")) {
    if (schema.additionalProperties === true || (!schema.properties && !schema.additionalProperties)) {
      out.push(path);
    }
  }
  for (const [name, child] of Object.entries<Schema>(schema.properties ?? {})) {
    openObjects(child, path ? `${path}.${name}` : name, out);
  }
  if (schema.additionalProperties && typeof schema.additionalProperties === "object") {
    openObjects(schema.additionalProperties, `${path}.*`, out);
  }
  if (schema.items) openObjects(schema.items, `${path}[]`, out);
  for (const key of ["oneOf", "anyOf", "allOf"]) {
    for (const child of schema[key] ?? []) openObjects(child, path, out);
  }
  return out;
}

describe("exact response schemas of the discovery routes", () => {
  let t: TestApp;
  let headers: { authorization: string };
  let doc: { paths: Record<string, Record<string, any>> };
  const replies: Record<string, any> = {};

  const schemaOf = (route: string): Schema =>
    doc.paths[route]?.get?.responses?.["200"]?.content?.["application/json"]?.schema;

  beforeAll(async () => {
    t = await createTestApp();
    ({ headers } = await t.workspace("discovery-responses"));
    const base = await exampleRequest();
    const files: Record<string, string> = {
      ...base.files,
      "processors/tagger.yaml": EXTRA_PROCESSOR,
      "triggers/nightly.yaml": EXTRA_TRIGGER,
      "search_profiles/exact.yaml": EXTRA_PROFILE,
      "views/unused.yaml": UNLISTED_VIEW,
    };
    files["packages/support.yaml"] = (files["packages/support.yaml"] as string)
      .replace(
        "processors: [embedder, urgency, customer_profile]",
        "processors: [embedder, urgency, customer_profile, tagger]",
      )
      .replace(
        "triggers: [customer_profile.default]",
        "triggers: [customer_profile.default, nightly_profile]",
      )
      .replace("search_profiles: [support]", "search_profiles: [support, exact_words]");
    const published = await t.publish(headers, { package: base.package, files });
    expect(published.statusCode, published.body).toBe(200);
    doc = (await t.app.inject({ url: "/openapi.json" })).json();
    for (const route of ROUTES) {
      const res = await t.app.inject({ url: route, headers });
      expect(res.statusCode, `${route}: ${res.body}`).toBe(200);
      replies[route] = res.json();
    }
  });
  afterAll(() => t.close());

  it("covers every definition family, so no list is empty", () => {
    const families = (list: any[], key: string) => [...new Set(list.map((item) => item[key]))].sort();
    expect(replies["/collections"].collections.length).toBeGreaterThan(1);
    expect(families(replies["/processors"].processors, "family")).toEqual(["derivation", "enrichment"]);
    const enrichment = replies["/processors"].processors.filter((p: any) => p.family === "enrichment");
    expect(families(enrichment, "kind")).toEqual(["embedding", "json", "score"]);
    expect(families(replies["/triggers"].triggers, "inline")).toEqual([false, true]);
    expect(families(replies["/views"].views, "kind")).toEqual(["graph", "graph_orphans", "search"]);
    expect(replies["/artifacts"].artifacts.length).toBeGreaterThan(0);
    expect(replies["/rank/schema"].backend.profiles.map((p: any) => p.text_rank.kind).sort()).toEqual([
      "bm25",
      "ts_rank_cd",
    ]);
    expect(replies["/rank/schema"].scores.length).toBeGreaterThan(0);
    expect(replies["/catalog/prune"].candidates.map((c: any) => c.definition)).toContain(
      "views:unused_view@1",
    );
  });

  it.each(ROUTES)("GET %s answers what /openapi.json publishes", (route) => {
    const schema = schemaOf(route);
    expect(schema, route).toBeDefined();
    const validate = ajv.compile(schema);
    expect(validate(replies[route]), ajv.errorsText(validate.errors)).toBe(true);
  });

  it.each(ROUTES)("GET %s publishes a closed schema, open only where the value is", (route) => {
    const open: Record<string, string[]> = {
      "/collections": ["collections[].schema"],
      "/catalog/definitions": ["definitions.*"],
    };
    expect(openObjects(schemaOf(route), "")).toEqual(open[route] ?? []);
  });

  it("lists the required properties of a collection summary and refuses unknown ones", () => {
    const item = schemaOf("/collections").properties.collections.items;
    expect(item.additionalProperties).toBe(false);
    expect(item.required).toEqual(expect.arrayContaining(["name", "version", "bindings", "hash", "fields"]));
    expect(item.properties.bindings.required).toEqual([
      "search_profile",
      "required_processors",
      "capabilities",
    ]);
    const validate = ajv.compile(schemaOf("/collections"));
    const [first] = replies["/collections"].collections;
    expect(validate({ collections: [{ ...first, extra: 1 }] })).toBe(false);
    const { bindings: _bindings, ...withoutBindings } = first;
    expect(validate({ collections: [withoutBindings] })).toBe(false);
  });

  it("refuses a reply that drifts from the published body", () => {
    const drift: [string, (reply: any) => void][] = [
      ["/processors", (r) => (r.processors[0].prompt = "secret")],
      ["/triggers", (r) => delete r.triggers[0].cooldown_s],
      ["/views", (r) => (r.views[0].parameters = { q: { type: "text", required: true } })],
      ["/artifacts", (r) => (r.artifacts[0].snapshot = null)],
      ["/rank/schema", (r) => (r.grammar.limits.max_depth = 16)],
      ["/catalog/definitions", (r) => delete r.manifest.retentions],
      ["/catalog/prune", (r) => (r.candidates[0].reference_kind = "some")],
    ];
    for (const [route, change] of drift) {
      const reply = structuredClone(replies[route]);
      change(reply);
      expect(ajv.compile(schemaOf(route))(reply), route).toBe(false);
    }
  });
});
