// The search routes: POST /search (the SearchSpec), GET /search (the quick form) and
// POST /views/{name}/query, with the replies they answer (docs/api.md "Search and views").
import { SEARCH_SPEC_SCHEMA } from "../catalog/index.js";
import { shape } from "./closed-object.js";
import type { RouteContract } from "./route.js";
import { anyObject, bool, int, listOf, nameParams, nullable, num, str, uuid } from "./schema-parts.js";

const tags = ["search"];

const backendEntry = {
  type: "object",
  properties: { name: str, layout: str, candidate_count: int, source: str },
  required: ["name", "layout", "candidate_count"],
} as const;

/**
 * A node of an explained rank (`explain.rank`, src/search/explain.ts): a rank expression node
 * with its value for the hit, or a wrapper above the expression (rrf, boost, graph_boost,
 * rerank). `args` holds nodes of this same shape (rrf's hold one source each).
 */
const RANK_OPERATORS = ["sum", "max", "product", "normalize", "saturate", "decay"];
const rankTreeNode = {
  type: "object",
  properties: {
    op: { enum: [...RANK_OPERATORS, "rrf", "boost", "graph_boost", "rerank"] },
    signal: { enum: ["similarity", "text_match", "score", "age_hours"] },
    const: num,
    name: { ...str, description: "score: the stored score's name" },
    field: { ...str, description: "age_hours: the timestamp" },
    factor: num,
    midpoint: num,
    exponent: num,
    min: { ...num, description: "normalize: the smallest value of its argument across the candidates" },
    max: { ...num, description: "normalize: the largest value of its argument across the candidates" },
    rank_constant: int,
    weight: num,
    distance: { ...int, description: "graph_boost: links from the anchor" },
    model: str,
    judged: { ...bool, description: "rerank: whether the judge saw the record (else its value is 0)" },
    source: { ...str, description: "an rrf argument: the source" },
    source_rank: int,
    rank: { ...anyObject, description: "an rrf argument: the source's explained rank" },
    order_by: listOf(anyObject),
    value: { ...num, description: "the node's value for this hit; the root's is the hit's rank_score" },
    args: listOf({ ...anyObject, description: "child nodes, of this same shape" }),
  },
  required: ["value"],
  additionalProperties: false,
} as const;

/** A hit's `explain` (SearchSpec `explain: true`, `POST /views/{name}/query?explain=true`). */
const hitExplain = shape(
  {
    signals: shape({
      similarity: nullable("number"),
      text_match: nullable("number"),
      age_hours: shape({ created_at: num, occurred_at: num, last_accessed: num }),
      scores: { type: "object", additionalProperties: num },
    }),
    rank: rankTreeNode,
    order_by: listOf(shape({ field: str, direction: { enum: ["asc", "desc"] }, value: {} })),
    proposed_by: listOf({ enum: ["vector", "text", "recent", "structured"] }),
    source_ranks: { type: "object", additionalProperties: int },
  },
  ["rank", "order_by", "source_ranks"],
);

const searchResponse = {
  type: "object",
  properties: {
    hits: listOf({
      type: "object",
      properties: {
        id: uuid,
        rank: int,
        score: nullable("number"),
        rank_score: num,
        source_ranks: anyObject,
        explain: {
          ...hitExplain,
          description: "only when asked for (explain: true): why the hit ranks where it does",
        },
      },
      required: ["id", "rank", "score"],
    }),
    ranking: anyObject,
    rendered: nullable("string"),
    truncated: bool,
    backend: listOf(backendEntry),
    profiles: listOf(str),
    rerank: anyObject,
    graph_boost: anyObject,
  },
  required: ["hits", "ranking", "rendered", "truncated", "backend", "profiles"],
} as const;

const viewIdentity = {
  view: shape({ name: str, version: int, hash: str }),
  parameters: anyObject,
  input_record_ids: listOf(uuid),
};

/** A search view: the search response without its rerank and graph_boost diagnostics, plus the view. */
const { rerank: _rerank, graph_boost: _graphBoost, ...searchViewFields } = searchResponse.properties;
const searchViewResponse = shape({ ...searchViewFields, ...viewIdentity });

/** A link a walk used (graph views answer them as both hits and citations). */
const graphLink = shape({
  id: uuid,
  text: str,
  subject: str,
  object: str,
  predicate: nullable("string"),
  content: anyObject,
});
const graphViewResponse = shape({
  ...viewIdentity,
  hits: listOf(graphLink),
  nodes: listOf(str),
  paths: listOf(shape({ nodes: listOf(str), edge_ids: listOf(uuid), depth: int })),
  citations: listOf(graphLink),
  truncated: bool,
  profiles: listOf(str),
  backend: listOf(backendEntry),
});

/** A node no walkable link names (graph_orphans views answer them as both hits and orphans). */
const orphanNode = shape({ id: uuid, entity: str, key: nullable("string"), text: str, content: anyObject });
const graphOrphansViewResponse = shape({
  ...viewIdentity,
  hits: listOf(orphanNode),
  orphans: listOf(orphanNode),
  truncated: bool,
  profiles: listOf(str),
  backend: listOf(backendEntry),
});

/** The reply of a view by its kind (MCP view tools answer exactly their kind's). */
export const VIEW_RESPONSES = {
  search: searchViewResponse,
  graph: graphViewResponse,
  graph_orphans: graphOrphansViewResponse,
} as const;

/** POST /views/{name}/query answers the reply of the view's kind. */
const viewResponse = { anyOf: Object.values(VIEW_RESPONSES) };

export const SEARCH: RouteContract = {
  method: "POST",
  url: "/search",
  schema: {
    summary: "Typed search (SearchSpec): vector, text, hybrid, recent, structured, or combined sources",
    tags,
    body: SEARCH_SPEC_SCHEMA,
    response: { 200: searchResponse },
  },
};

export const QUICK_SEARCH: RouteContract = {
  method: "GET",
  url: "/search",
  schema: {
    summary: "Hybrid search rendered for a prompt (q, entity, collection, k only)",
    tags,
    querystring: {
      type: "object",
      properties: {
        q: { type: "string", minLength: 1 },
        entity: { type: "string", minLength: 1 },
        collection: { type: "string", minLength: 1 },
        k: { type: "integer", minimum: 1, maximum: 100 },
      },
      required: ["q"],
      additionalProperties: false,
    },
    response: { 200: searchResponse },
  },
};

export const QUERY_VIEW: RouteContract = {
  method: "POST",
  url: "/views/:name/query",
  schema: {
    summary: "Run the active version of a named view with its parameters",
    tags,
    params: nameParams,
    querystring: {
      type: "object",
      properties: {
        explain: {
          type: "boolean",
          default: false,
          description:
            "a search view's hits carry explain, as with explain: true in a SearchSpec (search views only: 422 for a graph view)",
        },
      },
    },
    body: {
      type: "object",
      additionalProperties: true,
      description: "the view's parameters at top level; GET /views publishes each view's input_schema",
    },
    response: { 200: viewResponse },
  },
};
