import { describe, expect, it } from "vitest";
import { type SearchSpec, searchParts, validateSearchSpec } from "../../src/catalog/index.js";
import { buildIndex, collection, requestError } from "../support/catalog-index-fixture.js";

const index = buildIndex();
const limits = { maxQueryChars: 100 };
const valid = (input: unknown): SearchSpec => validateSearchSpec(input, index, limits);
const paths = (input: unknown) => requestError(() => valid(input)).paths;
const notes = { collections: ["notes"] };
const two = (a: Record<string, unknown> = {}, b: Record<string, unknown> = {}) => ({
  q: "hello",
  fuse: { kind: "rrf" },
  sources: [
    { name: "a", mode: "text", scope: notes, ...a },
    { name: "b", mode: "recent", scope: { collections: ["facts"] }, ...b },
  ],
});

describe("a single search", () => {
  it("fills the defaults", () => {
    const spec = valid({ q: "hello", mode: "hybrid" });
    expect(spec).toMatchObject({
      q: "hello",
      mode: "hybrid",
      k: 20,
      include: [],
      fields: [],
      annotations: [],
      render: false,
      where: {},
      order_by: [],
      params: { candidates: 200 },
      scope: { status: "active", keyed: "any", versions: "current" },
      profile: "main",
    });
    expect(spec.sources).toBeUndefined();
    expect(spec.fence).toBeUndefined();
  });

  it("accepts empty include, fields and annotations (up to 16: none is allowed)", () => {
    const spec = valid({ q: "hello", mode: "hybrid", include: [], fields: [], annotations: [] });
    expect(spec).toMatchObject({ include: [], fields: [], annotations: [] });
  });

  it("computes the candidates default from k", () => {
    expect(searchParts(valid({ q: "x", mode: "text", k: 5 }))[0]?.params.candidates).toBe(100);
    expect(searchParts(valid({ q: "x", mode: "text", k: 100 }))[0]?.params.candidates).toBe(1000);
    expect(
      searchParts(valid({ q: "x", mode: "text", params: { candidates: 7 } }))[0]?.params.candidates,
    ).toBe(7);
  });

  it("reads every listed version of active ordinary collections when unscoped", () => {
    expect(searchParts(valid({ mode: "recent" }))[0]?.targets.map((t) => `${t.name}@${t.version}`)).toEqual([
      "edges@1",
      "facts@1",
      "notes@1",
      "notes@2",
      "pages@1",
    ]);
  });

  it("resolves a collection named like an Object member when other collections are pinned", () => {
    const withMember = buildIndex(({ collections }) => {
      collections.push(collection("constructor", 1));
    });
    const scope = { collections: ["constructor", "notes"], collection_versions: { notes: [2] } };
    const spec = validateSearchSpec({ mode: "recent", scope }, withMember, limits);
    expect(searchParts(spec)[0]?.targets).toEqual([
      { name: "constructor", version: 1 },
      { name: "notes", version: 2 },
    ]);
  });

  it("reads every listed version of the named collections", () => {
    const targets = searchParts(valid({ mode: "recent", scope: { collections: ["notes", "facts"] } }))[0]
      ?.targets;
    expect(targets).toEqual([
      { name: "facts", version: 1 },
      { name: "notes", version: 1 },
      { name: "notes", version: 2 },
    ]);
  });

  it("refuses a body that is not an object", () => {
    const { error, paths } = requestError(() => valid("hybrid"));
    expect(error.status).toBe(422);
    expect(error.code).toBe("request_schema");
    expect(paths).toEqual([""]);
  });

  it("refuses unknown keys", () => {
    expect(paths({ q: "x", mode: "text", query: { match: {} } })).toEqual(["query"]);
    expect(paths({ mode: "recent", scope: { collection: ["notes"] } })).toContain("scope.collection");
  });

  it("requires mode", () => {
    expect(paths({ q: "x" })).toContain("mode");
    expect(paths({ q: "x", mode: "fuzzy" })).toContain("mode");
  });

  it("requires a non-empty q for vector, text and hybrid", () => {
    for (const mode of ["vector", "text", "hybrid"]) expect(paths({ mode })).toEqual(["q"]);
    expect(paths({ mode: "text", q: "  " })).toEqual(["q"]);
    expect(valid({ mode: "recent" }).q).toBeUndefined();
    expect(valid({ mode: "structured", order_by: [{ field: "topic" }], scope: notes }).mode).toBe(
      "structured",
    );
  });

  it("bounds q by maxQueryChars", () => {
    expect(paths({ mode: "text", q: "x".repeat(101) })).toEqual(["q"]);
  });

  it("bounds k", () => {
    expect(paths({ mode: "recent", k: 0 })).toEqual(["k"]);
    expect(paths({ mode: "recent", k: 101 })).toEqual(["k"]);
    expect(paths({ mode: "recent", k: 2.5 })).toEqual(["k"]);
  });

  it("defaults params.candidates to min(1000, max(100, base * k / 20)), base from the rank file", () => {
    const candidates = (k: number, base = 200) =>
      searchParts(
        validateSearchSpec(
          { mode: "recent", k },
          { ...index, rank: { ...index.rank, candidates: base } },
          limits,
        ),
      )[0]?.params.candidates;
    expect([candidates(1), candidates(20), candidates(50), candidates(100)]).toEqual([100, 200, 500, 1000]);
    expect([candidates(5, 400), candidates(20, 400), candidates(60, 400)]).toEqual([100, 400, 1000]);
  });

  it("bounds params.candidates and refuses unknown params", () => {
    expect(paths({ mode: "recent", params: { candidates: 1001 } })).toEqual(["params.candidates"]);
    expect(paths({ mode: "recent", params: { ef: 10 } })).toEqual(["params.ef"]);
  });

  it("accepts only the listed include values, unique", () => {
    expect(valid({ mode: "recent", include: ["text", "run_id"] }).include).toEqual(["text", "run_id"]);
    expect(paths({ mode: "recent", include: ["content"] })).toEqual(["include.0"]);
    expect(paths({ mode: "recent", include: ["text", "text"] })).toEqual(["include.1"]);
  });

  it("needs render for a fence and fills the tag", () => {
    expect(paths({ mode: "recent", fence: { tag: "x" } })).toEqual(["fence"]);
    expect(valid({ mode: "recent", render: true, fence: {} }).fence).toEqual({ tag: "records" });
    expect(paths({ mode: "recent", render: true, fence: { tag: "a b" } })).toEqual(["fence.tag"]);
    expect(paths({ mode: "recent", render: true, fence: { wrap: true } })).toEqual(["fence.wrap"]);
  });

  it("refuses a non-boolean render", () => {
    expect(paths({ mode: "recent", render: "yes" })).toEqual(["render"]);
  });

  it("refuses fuse and boost without sources", () => {
    expect(paths({ mode: "recent", fuse: { kind: "rrf" } })).toEqual(["fuse"]);
    expect(paths({ mode: "recent", boost: ["const", 1] })).toEqual(["boost"]);
  });
});

describe("scope", () => {
  it("refuses unknown and unlisted collections", () => {
    expect(paths({ mode: "recent", scope: { collections: ["nope"] } })).toEqual(["scope.collections.0"]);
    const { errors } = requestError(() => valid({ mode: "recent", scope: { collections: ["hidden"] } }));
    expect(errors[0]?.message).toMatch(/not listed/);
  });

  it("refuses duplicate, empty and oversized lists", () => {
    expect(paths({ mode: "recent", scope: { collections: ["notes", "notes"] } })).toEqual([
      "scope.collections.1",
    ]);
    expect(paths({ mode: "recent", scope: { entities: [] } })).toEqual(["scope.entities"]);
    const many = Array.from({ length: 101 }, (_, i) => `e${i}`);
    expect(paths({ mode: "recent", scope: { types: many } })).toEqual(["scope.types"]);
  });

  it("pins versions that exist and are named in collections", () => {
    const spec = valid({
      mode: "recent",
      scope: { collections: ["notes"], collection_versions: { notes: [2] } },
    });
    expect(searchParts(spec)[0]?.targets).toEqual([{ name: "notes", version: 2 }]);
    expect(
      paths({ mode: "recent", scope: { collections: ["notes"], collection_versions: { notes: [3] } } }),
    ).toEqual(["scope.collection_versions.notes.0"]);
    expect(
      paths({ mode: "recent", scope: { collections: ["notes"], collection_versions: { facts: [1] } } }),
    ).toEqual(["scope.collection_versions.facts"]);
    expect(paths({ mode: "recent", scope: { collection_versions: { notes: [1] } } })).toContain(
      "scope.collection_versions.notes",
    );
  });

  it("checks status, keyed and versions", () => {
    expect(
      valid({ mode: "recent", scope: { status: "all", keyed: true, versions: "all" } }).scope,
    ).toMatchObject({
      status: "all",
      keyed: true,
      versions: "all",
    });
    expect(paths({ mode: "recent", scope: { status: "deleted" } })).toEqual(["scope.status"]);
    expect(paths({ mode: "recent", scope: { keyed: "yes" } })).toEqual(["scope.keyed"]);
    expect(paths({ mode: "recent", scope: { versions: "latest" } })).toEqual(["scope.versions"]);
  });

  it("needs timezones and after before before", () => {
    expect(paths({ mode: "recent", scope: { occurred_after: "2024-01-01T00:00:00" } })).toEqual([
      "scope.occurred_after",
    ]);
    const window = { occurred_after: "2024-01-02T00:00:00Z", occurred_before: "2024-01-01T00:00:00Z" };
    expect(paths({ mode: "recent", scope: window })).toEqual(["scope.occurred_after"]);
    const same = { occurred_after: "2024-01-01T00:00:00Z", occurred_before: "2024-01-01T00:00:00Z" };
    expect(paths({ mode: "recent", scope: same })).toEqual(["scope.occurred_after"]);
  });

  it("needs a whole depth_lte of at least 0", () => {
    expect(valid({ mode: "recent", scope: { depth_lte: 0 } }).scope).toMatchObject({ depth_lte: 0 });
    expect(paths({ mode: "recent", scope: { depth_lte: -1 } })).toEqual(["scope.depth_lte"]);
  });

  it("resolves to exactly one search profile", () => {
    expect(paths({ mode: "recent", scope: { collections: ["notes", "archive"] } })).toEqual(["scope"]);
    const spread = buildIndex(({ collections }) => {
      for (const c of collections) c.active = true;
    });
    expect(requestError(() => validateSearchSpec({ mode: "recent" }, spread, limits)).paths).toEqual([
      "scope",
    ]);
  });

  it("needs the capability the mode uses", () => {
    expect(paths({ mode: "vector", q: "x", scope: { collections: ["archive"] } })).toEqual(["mode"]);
    expect(paths({ mode: "hybrid", q: "x", scope: { collections: ["archive"] } })).toEqual(["mode"]);
    expect(valid({ mode: "text", q: "x", scope: { collections: ["archive"] } }).profile).toBe("cold");
  });
});

describe("where", () => {
  const search = (where: unknown) => ({ mode: "recent", scope: { collections: ["notes"] }, where });

  it("accepts conditions that fit the declared types", () => {
    const where = {
      topic: { eq: "a", in: ["b", "c"], exists: true },
      tags: { eq: ["x", "y"], contains_any: ["x"], contains_all: ["x", "y"] },
      priority: { gte: 1, lt: 5, in: [1, 2] },
      weight: { gt: 0.5 },
      due: { lte: "2024-01-01T00:00:00Z" },
      done: { eq: false },
    };
    expect(valid(search(where)).where).toEqual(where);
  });

  it("refuses undeclared and unfilterable fields", () => {
    expect(paths(search({ nope: { eq: 1 } }))).toEqual(["where.nope"]);
    expect(paths(search({ secret: { eq: "x" } }))).toEqual(["where.secret"]);
  });

  it("needs the field in every collection version in scope", () => {
    expect(paths(search({ mood: { eq: "x" } }))).toEqual(["where.mood"]);
    const pinned = { collections: ["notes"], collection_versions: { notes: [2] } };
    expect(valid({ mode: "recent", scope: pinned, where: { mood: { eq: "x" } } }).where).toEqual({
      mood: { eq: "x" },
    });
  });

  it("refuses incompatible declarations across collections", () => {
    const both = {
      mode: "recent",
      scope: { collections: ["notes", "facts"] },
      where: { priority: { gt: 1 } },
    };
    expect(requestError(() => valid(both)).errors[0]?.message).toMatch(/incompatible/);
  });

  it("type-checks eq", () => {
    expect(paths(search({ topic: { eq: 1 } }))).toEqual(["where.topic.eq"]);
    expect(paths(search({ priority: { eq: 1.5 } }))).toEqual(["where.priority.eq"]);
    expect(paths(search({ tags: { eq: "x" } }))).toEqual(["where.tags.eq"]);
    expect(paths(search({ due: { eq: "2024-01-01" } }))).toEqual(["where.due.eq"]);
  });

  it("keeps in to single values and bounds its list", () => {
    expect(paths(search({ tags: { in: ["x"] } }))).toEqual(["where.tags.in"]);
    expect(paths(search({ topic: { in: [] } }))).toEqual(["where.topic.in"]);
    expect(paths(search({ topic: { in: Array(101).fill("x") } }))).toEqual(["where.topic.in"]);
    expect(paths(search({ topic: { in: ["x", 2] } }))).toEqual(["where.topic.in.1"]);
  });

  it("compares numbers and timestamps only", () => {
    expect(paths(search({ topic: { gt: "a" } }))).toEqual(["where.topic.gt"]);
    expect(paths(search({ done: { lt: 1 } }))).toEqual(["where.done.lt"]);
    expect(paths(search({ priority: { gte: "1" } }))).toEqual(["where.priority.gte"]);
    expect(paths(search({ due: { gt: 5 } }))).toEqual(["where.due.gt"]);
  });

  it("needs a boolean exists", () => {
    expect(paths(search({ topic: { exists: "yes" } }))).toEqual(["where.topic.exists"]);
  });

  it("keeps contains_any and contains_all to list fields", () => {
    expect(paths(search({ topic: { contains_any: ["x"] } }))).toEqual(["where.topic.contains_any"]);
    expect(paths(search({ tags: { contains_all: [] } }))).toEqual(["where.tags.contains_all"]);
    expect(paths(search({ tags: { contains_all: [1] } }))).toEqual(["where.tags.contains_all.0"]);
  });

  it("refuses unknown and missing conditions", () => {
    expect(paths(search({ topic: { like: "x" } }))).toContain("where.topic.like");
    expect(paths(search({ topic: {} }))).toEqual(["where.topic"]);
    expect(paths(search({ topic: "x" }))).toEqual(["where.topic"]);
  });
});

describe("structured mode and order_by", () => {
  const scope = notes;

  it("requires order_by", () => {
    expect(paths({ mode: "structured", scope })).toEqual(["order_by"]);
  });

  it("defaults the direction to asc", () => {
    const spec = valid({
      mode: "structured",
      scope,
      order_by: [{ field: "due", direction: "desc" }, { field: "topic" }],
    });
    expect(searchParts(spec)[0]?.order_by).toEqual([
      { field: "due", direction: "desc" },
      { field: "topic", direction: "asc" },
    ]);
  });

  it("needs sortable fields, unique, with a valid direction", () => {
    expect(paths({ mode: "structured", scope, order_by: [{ field: "done" }] })).toEqual(["order_by.0.field"]);
    expect(paths({ mode: "structured", scope, order_by: [{ field: "due" }, { field: "due" }] })).toEqual([
      "order_by.1.field",
    ]);
    expect(paths({ mode: "structured", scope, order_by: [{ field: "due", direction: "up" }] })).toEqual([
      "order_by.0.direction",
    ]);
  });

  it("refuses order_by outside structured mode", () => {
    expect(paths({ mode: "recent", scope, order_by: [{ field: "due" }] })).toEqual(["order_by"]);
  });

  it("refuses custom ranking in structured mode", () => {
    const base = { mode: "structured", scope, order_by: [{ field: "due" }] };
    expect(paths({ ...base, rank: ["const", 1] })).toEqual(["rank"]);
    expect(paths({ ...base, rerank: { model: "judge" } })).toEqual(["rerank"]);
  });
});

describe("rank", () => {
  it("normalizes a valid expression", () => {
    const rank = ["sum", [["similarity"], ["score", "importance"]]];
    expect(searchParts(valid({ q: "x", mode: "vector", rank }))[0]?.rank).toEqual(rank);
  });

  it("applies the mode rules with the error path", () => {
    expect(paths({ q: "x", mode: "text", rank: ["sum", [["similarity"]]] })).toEqual(["rank.1.0"]);
  });

  it("refuses score names the catalog does not produce", () => {
    expect(paths({ mode: "recent", rank: ["score", "summary"] })).toEqual(["rank.1"]);
  });
});

describe("fields and annotations", () => {
  it("needs returnable fields in every collection version in scope", () => {
    expect(valid({ mode: "recent", scope: notes, fields: ["topic", "due"] }).fields).toEqual([
      "topic",
      "due",
    ]);
    expect(paths({ mode: "recent", scope: notes, fields: ["weight"] })).toEqual(["fields.0"]);
    expect(paths({ mode: "recent", scope: notes, fields: ["mood"] })).toEqual(["fields.0"]);
  });

  it("bounds fields to 16 unique names", () => {
    expect(paths({ mode: "recent", scope: notes, fields: ["topic", "topic"] })).toEqual(["fields.1"]);
    expect(
      paths({ mode: "recent", scope: notes, fields: Array.from({ length: 17 }, (_, i) => `f${i}`) }),
    ).toEqual(["fields"]);
  });

  it("needs annotations required by every collection in scope", () => {
    expect(valid({ mode: "recent", scope: notes, annotations: ["summary"] }).annotations).toEqual([
      "summary",
    ]);
    const both = { collections: ["notes", "facts"] };
    expect(paths({ mode: "recent", scope: both, annotations: ["summary"] })).toEqual(["annotations.0"]);
    expect(paths({ mode: "recent", scope: notes, annotations: ["summary", "summary"] })).toEqual([
      "annotations.1",
    ]);
  });
});

describe("rerank and graph_boost", () => {
  it("takes a model alias and top_n", () => {
    expect(valid({ q: "x", mode: "recent", k: 5, rerank: { model: "judge" } }).rerank).toEqual({
      model: "judge",
      top_n: 5,
    });
    expect(paths({ q: "x", mode: "recent", rerank: { model: "embed" } })).toEqual(["rerank.model"]);
    expect(paths({ q: "x", mode: "recent", rerank: {} })).toEqual(["rerank.model"]);
    expect(paths({ q: "x", mode: "recent", rerank: { model: "judge", top_n: 101 } })).toEqual([
      "rerank.top_n",
    ]);
  });

  it("needs a non-empty q to judge against", () => {
    expect(paths({ mode: "recent", rerank: { model: "judge" } })).toEqual(["rerank"]);
    expect(paths({ q: "  ", mode: "recent", rerank: { model: "judge" } })).toEqual(["rerank"]);
  });

  it("takes an anchor with depth and weight", () => {
    expect(valid({ mode: "recent", graph_boost: { anchor: "acme" } }).graph_boost).toEqual({
      anchor: "acme",
      depth: 1,
      weight: 1,
    });
    expect(paths({ mode: "recent", graph_boost: {} })).toEqual(["graph_boost.anchor"]);
    expect(paths({ mode: "recent", graph_boost: { anchor: "x".repeat(129) } })).toEqual([
      "graph_boost.anchor",
    ]);
    expect(paths({ mode: "recent", graph_boost: { anchor: "a", depth: 17 } })).toEqual(["graph_boost.depth"]);
    expect(paths({ mode: "recent", graph_boost: { anchor: "a", weight: 0 } })).toEqual([
      "graph_boost.weight",
    ]);
    expect(paths({ mode: "recent", graph_boost: { anchor: "a", graph: "nope" } })).toEqual([
      "graph_boost.graph",
    ]);
  });

  it("needs an active graph view", () => {
    const bare = buildIndex(({ views }) => {
      views.length = 0;
    });
    const { paths } = requestError(() =>
      validateSearchSpec({ mode: "recent", graph_boost: { anchor: "a" } }, bare, limits),
    );
    expect(paths).toEqual(["graph_boost"]);
  });
});

describe("combined searches", () => {
  it("fills source and fuse defaults", () => {
    const spec = valid(two());
    expect(spec.sources?.map((s) => [s.name, s.weight, s.k, s.params.candidates, s.profile])).toEqual([
      ["a", 1, 20, 200, "main"],
      ["b", 1, 20, 200, "main"],
    ]);
    expect(spec.sources && spec.fuse).toEqual({ kind: "rrf", rank_constant: 60 });
  });

  it("requires fuse of kind rrf with a bounded rank_constant", () => {
    const { fuse: _fuse, ...noFuse } = two();
    expect(paths(noFuse)).toEqual(["fuse"]);
    expect(paths({ ...two(), fuse: { kind: "linear" } })).toEqual(["fuse.kind"]);
    expect(paths({ ...two(), fuse: {} })).toEqual(["fuse.kind"]);
    expect(paths({ ...two(), fuse: { kind: "rrf", rank_constant: 0 } })).toEqual(["fuse.rank_constant"]);
    expect(paths({ ...two(), fuse: { kind: "rrf", rank_constant: 1001 } })).toEqual(["fuse.rank_constant"]);
  });

  it("takes 1 to 8 sources with unique names", () => {
    expect(paths({ ...two(), sources: [] })).toEqual(["sources"]);
    const nine = Array.from({ length: 9 }, (_, i) => ({ name: `s${i}`, mode: "recent", scope: notes }));
    expect(paths({ fuse: { kind: "rrf" }, sources: nine })).toEqual(["sources"]);
    expect(paths(two({}, { name: "a" }))).toEqual(["sources.1.name"]);
    expect(paths(two({ name: undefined }))).toEqual(["sources.0.name"]);
  });

  it("bounds source k and weight", () => {
    expect(paths(two({ k: 0 }))).toEqual(["sources.0.k"]);
    expect(paths(two({ weight: 0 }))).toEqual(["sources.0.weight"]);
    expect(paths(two({ weight: 100.5 }))).toEqual(["sources.0.weight"]);
    expect(valid(two({ weight: 100 })).sources?.[0]?.weight).toBe(100);
  });

  it("refuses top-level mode, scope, where, order_by and rank", () => {
    expect(paths({ ...two(), mode: "text" })).toEqual(["mode"]);
    expect(paths({ ...two(), scope: notes, where: {}, order_by: [], rank: ["const", 1] }).sort()).toEqual([
      "order_by",
      "rank",
      "scope",
      "where",
    ]);
  });

  it("requires q when a source uses vector, text or hybrid", () => {
    const { q: _q, ...noQ } = two();
    expect(paths(noQ)).toEqual(["q"]);
    expect(valid({ ...noQ, sources: [{ name: "b", mode: "recent", scope: notes }] }).q).toBeUndefined();
  });

  it("requires each source to name its collections, in one profile", () => {
    expect(paths(two({ scope: undefined }))).toEqual(["sources.0.scope.collections"]);
    expect(paths(two({ scope: { collections: ["notes", "archive"] } }))).toEqual(["sources.0.scope"]);
    expect(valid(two({ scope: { collections: ["archive"] } })).sources?.[0]?.profile).toBe("cold");
  });

  it("checks each source like a search", () => {
    expect(paths(two({ where: { nope: { eq: 1 } } }))).toEqual(["sources.0.where.nope"]);
    expect(paths(two({ rank: ["similarity"] }))).toEqual(["sources.0.rank"]);
    expect(paths(two({}, { mode: "structured" }))).toEqual(["sources.1.order_by"]);
    expect(paths(two({ extra: 1 }))).toEqual(["sources.0.extra"]);
  });

  it("uses a top-level params.candidates as the source default", () => {
    const spec = valid({ ...two({ params: { candidates: 9 } }), params: { candidates: 50 } });
    expect(spec.sources?.map((s) => s.params.candidates)).toEqual([9, 50]);
  });

  it("takes a boost without query-specific signals", () => {
    expect(valid({ ...two(), boost: ["score", "importance"] }).sources && true).toBe(true);
    expect(paths({ ...two(), boost: ["text_match"] })).toEqual(["boost"]);
    expect(paths({ ...two(), boost: ["sum", [["age_hours", "created_at"], ["similarity"]]] })).toEqual([
      "boost.1.1",
    ]);
  });

  it("checks fields and annotations across every source", () => {
    expect(paths({ ...two(), annotations: ["summary"] })).toEqual(["annotations.0"]);
    expect(valid({ ...two(), fields: ["topic"] }).fields).toEqual(["topic"]);
  });

  it("lists every problem at once", () => {
    expect(paths({ ...two({ k: 0 }, { weight: -1 }), k: 0, include: ["x"] }).sort()).toEqual([
      "include.0",
      "k",
      "sources.0.k",
      "sources.1.weight",
    ]);
  });
});
