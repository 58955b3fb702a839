// The JSON Schema of a search request, built from the readers' own keys and bounds. The HTTP
// route validates a body against it before validateSearchSpec, and OpenAPI publishes it, so
// clients see the request's shape; what depends on the catalog (collection and field names,
// capabilities, modes that need q, rank operators) is checked by validateSearchSpec alone.
import { INT4_MAX } from "../../platform/input.js";
import { SEARCH_MODES } from "../definition/index.js";
import { INCLUDE_FIELDS } from "./include.js";
import { CONDITIONS, ORDER_MAX, type SCOPE_KEYS, SCOPE_LIST_MAX, VALUE_LIST_MAX } from "./scope.js";
import {
  FENCE_TAG,
  NAMES_MAX,
  type PART_KEYS,
  SEARCH_BOUNDS,
  type SOURCE_KEYS,
  type TOP_KEYS,
} from "./spec.js";

const name = { type: "string", minLength: 1, maxLength: 256, pattern: "\\S" } as const;
const names = (max: number, minItems: number) =>
  ({ type: "array", items: name, minItems, maxItems: max, uniqueItems: true }) as const;
const timestamp = { type: "string", description: "ISO 8601 with a timezone, years 1-9999" } as const;
const integer = (min: number, max: number) => ({ type: "integer", minimum: min, maximum: max }) as const;
const positive = (max: number) => ({ type: "number", exclusiveMinimum: 0, maximum: max }) as const;
const closed = (properties: Record<string, object>, required: string[] = []) =>
  ({ type: "object", properties, required, additionalProperties: false }) as const;
const expression = (what: string) =>
  ({
    type: "array",
    minItems: 1,
    description: `${what}: a node [operator, ...arguments]; GET /rank/schema publishes the grammar`,
  }) as const;
const valueList = { type: "array", maxItems: VALUE_LIST_MAX, minItems: 1 } as const;

const scope = closed({
  collections: names(SCOPE_LIST_MAX, 1),
  collection_versions: {
    type: "object",
    description: "collection name to the versions to read (each also listed in collections)",
    additionalProperties: {
      type: "array",
      items: integer(1, Number.MAX_SAFE_INTEGER),
      minItems: 1,
      maxItems: SCOPE_LIST_MAX,
      uniqueItems: true,
    },
  },
  entities: names(SCOPE_LIST_MAX, 1),
  types: names(SCOPE_LIST_MAX, 1),
  status: { enum: ["active", "draft", "all"] },
  keyed: { enum: [true, false, "any"] },
  versions: { enum: ["current", "all"] },
  occurred_after: timestamp,
  occurred_before: timestamp,
  depth_lte: integer(0, INT4_MAX),
} satisfies Record<(typeof SCOPE_KEYS)[number], object>);
const ordered = { type: ["number", "string"] } as const;
const condition = {
  ...closed({
    eq: { description: "a value of the field's declared type" },
    in: valueList,
    gt: ordered,
    gte: ordered,
    lt: ordered,
    lte: ordered,
    exists: { type: "boolean" },
    contains_any: { ...valueList, items: { type: "string" } },
    contains_all: { ...valueList, items: { type: "string" } },
  }),
  minProperties: 1,
} as const;
const part = {
  mode: { enum: SEARCH_MODES },
  scope,
  where: {
    type: "object",
    description: `declared filterable field to conditions (${CONDITIONS.join(", ")})`,
    additionalProperties: condition,
  },
  order_by: {
    type: "array",
    minItems: 1,
    maxItems: ORDER_MAX,
    items: closed({ field: name, direction: { enum: ["asc", "desc"] } }, ["field"]),
  },
  rank: expression("a custom ranking formula"),
  params: closed({ candidates: integer(1, SEARCH_BOUNDS.candidates) }),
  k: integer(1, SEARCH_BOUNDS.k),
} satisfies Record<(typeof PART_KEYS)[number], object>;

const source = closed(
  {
    name: { ...name, maxLength: SEARCH_BOUNDS.sourceName },
    weight: positive(SEARCH_BOUNDS.weight),
    ...part,
  } satisfies Record<(typeof SOURCE_KEYS)[number], object>,
  ["name", "mode"],
);

/** The request body of POST /search (a SearchSpec). */
export const SEARCH_SPEC_SCHEMA = {
  ...closed({
    q: { type: "string", description: "the query text (at most MAX_QUERY_CHARS characters)" },
    ...part,
    include: { type: "array", items: { enum: INCLUDE_FIELDS }, uniqueItems: true },
    fields: names(NAMES_MAX, 0),
    annotations: names(NAMES_MAX, 0),
    render: { type: "boolean" },
    fence: closed({
      tag: { type: "string", pattern: FENCE_TAG.source },
      preamble: { type: "string", maxLength: SEARCH_BOUNDS.preamble },
    }),
    rerank: closed({ model: name, top_n: integer(1, SEARCH_BOUNDS.topN) }, ["model"]),
    graph_boost: closed(
      {
        anchor: { ...name, maxLength: SEARCH_BOUNDS.anchor },
        graph: name,
        depth: integer(1, SEARCH_BOUNDS.graphDepth),
        weight: positive(SEARCH_BOUNDS.weight),
      },
      ["anchor"],
    ),
    sources: { type: "array", items: source, minItems: 1, maxItems: SEARCH_BOUNDS.sources },
    fuse: closed({ kind: { enum: ["rrf"] }, rank_constant: integer(1, SEARCH_BOUNDS.rankConstant) }, [
      "kind",
    ]),
    boost: expression("a boost formula applied after fusing sources"),
    explain: {
      type: "boolean",
      default: false,
      description:
        "each hit also carries explain: the signals, the rank expression with each node's value, the candidate lists that proposed it (and source_ranks with sources; order_by values in structured mode)",
    },
    as_of: {
      type: "string",
      format: "date-time",
      description:
        "search memory as it was at this moment: only records created at or before it, current values decided among them (every source)",
    },
  } satisfies Record<(typeof TOP_KEYS)[number], object>),
  description:
    "A typed search: one mode with its scope, or sources fused by rrf. Catalog-dependent rules (collections, fields, capabilities) are checked after this shape.",
} as const;
