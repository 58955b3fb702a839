import { describe, expect, it } from "vitest";
import { Def } from "../../src/catalog/definition/def.js";
import { linkView, parseView, viewDiscoveryEntry } from "../../src/catalog/families/views.js";
import { fillTemplate, viewSearch } from "../../src/catalog/index.js";
import { ajv } from "../../src/platform/schema.js";
import { buildIndex, definitionError, requestError } from "../support/catalog-index-fixture.js";

const index = buildIndex();
const src = (value: unknown) => new Def("views/x.yaml", ["views", 0], value);
const load = (value: Record<string, unknown>, idx = index) => {
  const at = src(value);
  const view = parseView(at);
  linkView(view, at, idx);
  return view;
};
const searchView = (extra: Record<string, unknown> = {}) => ({
  name: "recent_notes",
  version: 1,
  active: true,
  parameters: {
    who: { type: "string", required: true },
    k: { type: "integer", minimum: 1, maximum: 50, default: 10 },
    topic: { type: "string" },
  },
  query: {
    q: "about {{who}}",
    mode: "hybrid",
    k: "{{k}}",
    scope: { collections: ["notes"], entities: ["{{who}}"] },
    where: { topic: { eq: "{{topic}}" } },
  },
  ...extra,
});

describe("parseView", () => {
  it("parses a search view with its defaults", () => {
    const view = parseView(src({ name: "v", version: 2, query: { mode: "recent" } }));
    expect(view).toEqual({
      name: "v",
      version: 2,
      active: false,
      kind: "search",
      parameters: {},
      query: { mode: "recent" },
      required_capabilities: [],
    });
  });

  it("requires name and a positive version", () => {
    expect(definitionError(() => parseView(src({ version: 1, query: {} }))).extra.path).toBe("views.0.name");
    expect(definitionError(() => parseView(src({ name: "v", version: 0, query: {} }))).extra.path).toBe(
      "views.0.version",
    );
  });

  it("names views like every other definition, so that name@version references can reach them", () => {
    for (const name of ["Recent", "recent-notes", "9lives"]) {
      expect(definitionError(() => parseView(src({ name, version: 1, query: {} }))).extra.path).toBe(
        "views.0.name",
      );
    }
    expect(parseView(src({ name: "recent_notes2", version: 1, query: {} })).name).toBe("recent_notes2");
  });

  it("refuses unknown fields", () => {
    const error = definitionError(() =>
      parseView(src({ name: "v", version: 1, query: {}, engine_query: {} })),
    );
    expect(error.code).toBe("definition_invalid");
    expect(error.extra.path).toBe("views.0.engine_query");
  });

  it("requires a query mapping for search views", () => {
    expect(definitionError(() => parseView(src({ name: "v", version: 1 }))).extra.path).toBe("views.0.query");
    expect(definitionError(() => parseView(src({ name: "v", version: 1, query: "x" }))).extra.path).toBe(
      "views.0.query",
    );
  });

  it("refuses an unknown kind", () => {
    expect(definitionError(() => parseView(src({ name: "v", version: 1, kind: "sql" }))).extra.path).toBe(
      "views.0.kind",
    );
  });

  it("checks required_capabilities", () => {
    const base = { name: "v", version: 1, query: { mode: "recent" } };
    expect(parseView(src({ ...base, required_capabilities: ["vector"] })).required_capabilities).toEqual([
      "vector",
    ]);
    expect(
      definitionError(() => parseView(src({ ...base, required_capabilities: ["sql"] }))).extra.path,
    ).toBe("views.0.required_capabilities.0");
    const duplicate = definitionError(() =>
      parseView(src({ ...base, required_capabilities: ["text", "text"] })),
    );
    expect(duplicate.code).toBe("definition_duplicate");
  });

  it("keeps query, required_capabilities and graph to their kinds", () => {
    const graph = { edges: "edges" };
    expect(
      definitionError(() => parseView(src({ name: "v", version: 1, query: { mode: "recent" }, graph }))).extra
        .path,
    ).toBe("views.0.graph");
    expect(
      definitionError(() => parseView(src({ name: "g", version: 1, kind: "graph", graph, query: {} }))).extra
        .path,
    ).toBe("views.0.query");
    expect(
      definitionError(() =>
        parseView(src({ name: "g", version: 1, kind: "graph", graph, required_capabilities: ["text"] })),
      ).extra.path,
    ).toBe("views.0.required_capabilities");
  });

  it("parses the parameters with the parameter model", () => {
    const error = definitionError(() =>
      parseView(src({ name: "v", version: 1, query: {}, parameters: { a: { type: "string", minimum: 1 } } })),
    );
    expect(error.extra.path).toBe("views.0.parameters.a.minimum");
  });
});

describe("graph views", () => {
  const graph = { name: "g", version: 1, kind: "graph", graph: { edges: "edges" } };

  it("imply exactly the fixed parameters", () => {
    const view = parseView(src(graph));
    expect(Object.keys(view.parameters)).toEqual(["seed", "predicates", "direction", "depth", "limit"]);
    expect(view.parameters.seed).toMatchObject({
      type: "string",
      required: true,
      min_length: 1,
      max_length: 128,
    });
    expect(view.parameters.predicates).toMatchObject({ type: "string_array", default: [] });
    expect(view.parameters.direction).toMatchObject({ enum: ["out", "in", "both"], default: "out" });
    expect(view.parameters.depth).toMatchObject({ minimum: 1, maximum: 16, default: 1 });
    expect(view.parameters.limit).toMatchObject({ minimum: 1, maximum: 500, default: 20 });
    expect(view.graph).toEqual({
      edges: "edges",
      subject: "subject",
      object: "object",
      predicate: "predicate",
    });
  });

  it("accept declared fixed parameters with descriptions and item_enum", () => {
    const view = parseView(
      src({
        ...graph,
        parameters: {
          seed: { type: "string", required: true, description: "start node" },
          predicates: { type: "string_array", item_enum: ["knows", "owns"] },
        },
      }),
    );
    expect(view.parameters.seed?.description).toBe("start node");
    expect(view.parameters.predicates?.item_enum).toEqual(["knows", "owns"]);
  });

  it("refuse other parameters", () => {
    const error = definitionError(() =>
      parseView(src({ ...graph, parameters: { hops: { type: "integer" } } })),
    );
    expect(error.extra.path).toBe("views.0.parameters.hops");
  });

  it("refuse an Object member name as another parameter", () => {
    const error = definitionError(() =>
      parseView(src({ ...graph, parameters: { constructor: { type: "string" } } })),
    );
    expect(error.extra.path).toBe("views.0.parameters.constructor");
    expect(error.message).toContain("exactly the parameters");
  });

  it("refuse changed types, bounds and defaults", () => {
    const at = (parameters: unknown) =>
      definitionError(() => parseView(src({ ...graph, parameters }))).extra.path;
    expect(at({ seed: { type: "integer", required: true } })).toBe("views.0.parameters.seed.type");
    expect(at({ depth: { type: "integer", maximum: 20 } })).toBe("views.0.parameters.depth.maximum");
    expect(at({ limit: { type: "integer", default: 50 } })).toBe("views.0.parameters.limit.default");
    expect(at({ seed: { type: "string" } })).toBe("views.0.parameters.seed.required");
  });

  it("graph_orphans has only limit, whose default the definition may choose", () => {
    const orphans = {
      name: "o",
      version: 1,
      kind: "graph_orphans",
      graph: { edges: "edges", nodes: "pages" },
    };
    expect(parseView(src(orphans)).parameters).toEqual({
      limit: { type: "integer", required: false, minimum: 1, maximum: 500, default: 20 },
    });
    const chosen = parseView(src({ ...orphans, parameters: { limit: { type: "integer", default: 100 } } }));
    expect(chosen.parameters.limit?.default).toBe(100);
    const over = definitionError(() =>
      parseView(src({ ...orphans, parameters: { limit: { type: "integer", default: 600 } } })),
    );
    expect(over.extra.path).toBe("views.0.parameters.limit.default");
    expect(
      definitionError(() => parseView(src({ ...orphans, parameters: { seed: { type: "string" } } }))).code,
    ).toBe("definition_invalid");
    expect(definitionError(() => parseView(src({ ...orphans, graph: { edges: "edges" } }))).extra.path).toBe(
      "views.0.graph.nodes",
    );
  });

  it("resolve their collections and mapped fields", () => {
    expect(() => load(graph)).not.toThrow();
    expect(definitionError(() => load({ ...graph, graph: { edges: "links" } })).code).toBe(
      "definition_unresolved",
    );
    expect(definitionError(() => load({ ...graph, graph: { edges: "hidden" } })).code).toBe(
      "package_not_closed",
    );
    const field = definitionError(() => load({ ...graph, graph: { edges: "edges", subject: "from" } }));
    expect(field.extra.path).toBe("views.0.graph.subject");
    const nodes = {
      name: "o",
      version: 1,
      kind: "graph_orphans",
      graph: { edges: "edges", nodes: "ghosts" },
    };
    expect(definitionError(() => load(nodes)).code).toBe("definition_unresolved");
  });
});

describe("fillTemplate", () => {
  const template = {
    q: "about {{who}} and {{tags}}",
    k: "{{k}}",
    scope: { entities: ["{{who}}", "{{other}}"] },
    x: "{{gone}}",
  };

  it("replaces whole placeholders by typed values and embedded ones by text", () => {
    expect(fillTemplate(template, { who: "ann", k: 5, tags: ["a", "b"], other: "bob" })).toEqual({
      q: "about ann and a,b",
      k: 5,
      scope: { entities: ["ann", "bob"] },
    });
  });

  it("removes what holds an absent parameter", () => {
    expect(fillTemplate(template, { who: "ann", k: 5, tags: [] })).toEqual({
      q: "about ann and ",
      k: 5,
      scope: { entities: ["ann"] },
    });
  });

  it("removes mappings and lists emptied by removal, but keeps ones written empty", () => {
    const filter = {
      where: { topic: { eq: "{{topic}}" } },
      scope: { entities: ["{{who}}"] },
      include: [],
      x: {},
    };
    expect(fillTemplate(filter, {})).toEqual({ include: [], x: {} });
    expect(fillTemplate(filter, { topic: "t" })).toEqual({
      where: { topic: { eq: "t" } },
      include: [],
      x: {},
    });
  });

  it("treats a placeholder named like an Object member as an absent argument", () => {
    expect(fillTemplate({ x: "{{constructor}}", y: "a{{toString}}b" }, {})).toEqual({ y: "ab" });
  });

  it("does not change the template", () => {
    const copy = structuredClone(template);
    fillTemplate(template, { who: "x", k: 1 });
    expect(template).toEqual(copy);
  });
});

describe("linkView (search views)", () => {
  it("loads a valid view", () => {
    expect(load(searchView()).kind).toBe("search");
  });

  it("refuses a placeholder naming no parameter", () => {
    const view = searchView();
    (view.query as Record<string, unknown>).q = "{{whom}}";
    const error = definitionError(() => load(view));
    expect(error.code).toBe("definition_unresolved");
    expect(error.extra.path).toBe("views.0.query.q");
  });

  it("names the field a rendered query lacks", () => {
    const view = searchView({ query: { mode: "structured", scope: { collections: ["notes"] } } });
    const error = definitionError(() => load(view));
    expect(error.extra.path).toBe("views.0.query.order_by");
    expect(error.message).toContain("not a valid search request: order_by is required in structured mode");
  });

  it("refuses a placeholder in a key", () => {
    const view = searchView();
    (view.query as Record<string, unknown>).where = { "{{who}}": { eq: "x" } };
    expect(definitionError(() => load(view)).extra.path).toBe("views.0.query.where.{{who}}");
  });

  it("refuses unknown keys of the rendered query at its path", () => {
    const view = searchView();
    (view.query as Record<string, unknown>).knn = { field: "v" };
    const error = definitionError(() => load(view));
    expect(error.code).toBe("definition_invalid");
    expect(error.extra.path).toBe("views.0.query.knn");
  });

  it("reports the first rendered problem under query", () => {
    const view = searchView();
    (view.query as Record<string, unknown>).where = { secret: { eq: "x" } };
    expect(definitionError(() => load(view)).extra.path).toBe("views.0.query.where.secret");
  });

  it("type-checks a typed placeholder through its sample", () => {
    const view = searchView({
      parameters: {
        who: { type: "string", required: true },
        k: { type: "string" },
        topic: { type: "string" },
      },
    });
    expect(definitionError(() => load(view)).extra.path).toBe("views.0.query.k");
  });

  it("refuses unresolved and unlisted collections", () => {
    const unknown = searchView();
    (unknown.query as { scope: Record<string, unknown> }).scope.collections = ["nope"];
    const error = definitionError(() => load(unknown));
    expect(error.code).toBe("definition_unresolved");
    expect(error.extra.path).toBe("views.0.query.scope.collections.0");
    const hidden = searchView();
    (hidden.query as { scope: Record<string, unknown> }).scope.collections = ["hidden"];
    expect(definitionError(() => load(hidden)).code).toBe("package_not_closed");
  });

  it("refuses an unlisted pinned version", () => {
    const view = searchView();
    (view.query as { scope: Record<string, unknown> }).scope.collection_versions = { notes: [7] };
    const error = definitionError(() => load(view));
    expect(error.code).toBe("definition_unresolved");
    expect(error.extra.path).toBe("views.0.query.scope.collection_versions.notes.0");
  });

  it("refuses a mode the profile cannot serve", () => {
    const view = searchView();
    (view.query as { scope: Record<string, unknown> }).scope.collections = ["archive"];
    (view.query as Record<string, unknown>).where = undefined;
    expect(definitionError(() => load(view)).extra.path).toBe("views.0.query.mode");
  });

  it("refuses required capabilities the profile lacks", () => {
    const view = searchView({ required_capabilities: ["text", "vector"] });
    (view.query as Record<string, unknown>).mode = "text";
    (view.query as { scope: Record<string, unknown> }).scope.collections = ["archive"];
    (view.query as Record<string, unknown>).where = undefined;
    const error = definitionError(() => load(view));
    expect(error.code).toBe("definition_invalid");
    expect(error.extra.path).toBe("views.0.required_capabilities.1");
    (view.query as { scope: Record<string, unknown> }).scope.collections = ["notes"];
    expect(() => load(view)).not.toThrow();
  });

  it("checks rank operators and score names", () => {
    const view = searchView();
    (view.query as Record<string, unknown>).rank = ["score", "nope"];
    expect(definitionError(() => load(view)).extra.path).toBe("views.0.query.rank.1");
  });
});

describe("viewSearch", () => {
  const view = load(searchView());

  it("validates arguments, applies defaults and fills the template", () => {
    const { parameters, spec } = viewSearch(view, { who: "ann" }, index, { maxQueryChars: 8192 });
    expect(parameters).toEqual({ who: "ann", k: 10 });
    expect(spec).toMatchObject({ q: "about ann", k: 10, scope: { entities: ["ann"] }, where: {} });
  });

  it("reads memory as of a datetime parameter when its query sets as_of", () => {
    const base = searchView();
    const asOfView = load({
      ...base,
      parameters: { ...base.parameters, when: { type: "datetime", required: true } },
      query: { ...base.query, as_of: "{{when}}" },
    });
    const { spec } = viewSearch(asOfView, { who: "ann", when: "2026-11-20T09:30:00Z" }, index, {
      maxQueryChars: 8192,
    });
    expect(spec).toMatchObject({ as_of: "2026-11-20T09:30:00Z" });
    expect(
      requestError(() => viewSearch(asOfView, { who: "ann", when: "noon" }, index, { maxQueryChars: 8192 }))
        .paths,
    ).toEqual(["when"]);
  });

  it("refuses bad arguments with request_schema", () => {
    expect(requestError(() => viewSearch(view, { who: 1 }, index, { maxQueryChars: 8192 })).paths).toEqual([
      "who",
    ]);
  });

  it("leaves out an omitted optional parameter named like an Object member", () => {
    const members = load(
      searchView({
        parameters: { who: { type: "string", required: true }, constructor: { type: "string" } },
        query: { mode: "recent", scope: { collections: ["notes"], types: ["{{constructor}}"] } },
      }),
    );
    const { parameters, spec } = viewSearch(members, { who: "ann" }, index, { maxQueryChars: 8192 });
    expect(parameters).toEqual({ who: "ann" });
    expect(spec.scope?.types).toBeUndefined();
  });

  it("validates the finished request a second time", () => {
    const { paths } = requestError(() =>
      viewSearch(view, { who: "x".repeat(20) }, index, { maxQueryChars: 10 }),
    );
    expect(paths).toEqual(["q"]);
  });
});

describe("viewDiscoveryEntry", () => {
  it("describes a search view", () => {
    const at = src(searchView({ required_capabilities: ["vector"] }));
    const view = parseView(at);
    const entry = viewDiscoveryEntry({ def: view, src: at }, index, "h1");
    expect(entry).toMatchObject({
      name: "recent_notes",
      version: 1,
      hash: "h1",
      active: true,
      kind: "search",
      parameters: {
        who: { type: "string", required: true },
        k: { type: "integer", required: false, default: 10 },
        topic: { type: "string", required: false },
      },
      collections: ["notes"],
      required_capabilities: ["vector"],
      profiles: ["main"],
    });
    const validate = ajv.compile(entry.input_schema as object);
    expect(validate({ who: "a" })).toBe(true);
    expect(validate({})).toBe(false);
  });

  it("describes a graph view", () => {
    const at = src({ name: "g", version: 1, kind: "graph", graph: { edges: "edges" } });
    const entry = viewDiscoveryEntry({ def: parseView(at), src: at }, index, "h2");
    expect(entry).toMatchObject({
      kind: "graph",
      collections: ["edges"],
      profiles: ["main"],
      required_capabilities: [],
    });
    expect((entry.input_schema as { required: string[] }).required).toEqual(["seed"]);
  });
});
