// The discovery routes (docs/api.md "Catalog reads"): GET /collections, /processors, /triggers,
// /views, /artifacts and /rank/schema, read-only views of the installed catalog. Their builders
// are in src/catalog/publishing/discovery.ts and the families' summary functions.
import {
  AGE_FIELDS,
  CAPABILITIES,
  PROCESSOR_KINDS,
  RANKED_MODES,
  TEXT_RANK_KINDS,
  TRIGGER_ON,
  VALUE_TYPES,
} from "../catalog/index.js";
import { shape } from "./closed-object.js";
import type { RouteContract } from "./route.js";
import { anyObject, bool, int, listOf, mapOf, nullable, num, orNull, str } from "./schema-parts.js";

const valueType = { enum: [...VALUE_TYPES] };
const capabilities = listOf({ enum: [...CAPABILITIES] });
const names = listOf(str);

/** An open JSON Schema 2020-12 written by the catalog's author, passed through as published. */
const userSchema = (what: string) => ({ ...anyObject, description: `${what} (JSON Schema 2020-12, open)` });

/** A declared field of a collection version (types.ts FieldDecl), its flags filled in. */
const fieldDecl = {
  path: { ...str, description: "dotted path into content (customer.tier)" },
  type: valueType,
  filter: bool,
  sort: bool,
  return: bool,
  project: bool,
};

// ---- GET /collections

const collectionSummary = shape({
  name: str,
  version: int,
  active: bool,
  mode: { enum: ["event", "keyed", "mixed"] },
  hash: str,
  schema: userSchema("the content schema of the collection's records"),
  fields: mapOf(shape(fieldDecl)),
  answerable: bool,
  bindings: shape({
    search_profile: str,
    required_processors: names,
    capabilities: { ...capabilities, description: "what the search profile offers, sorted" },
  }),
});

// ---- GET /processors

const scale = { type: "array", items: num, minItems: 2, maxItems: 2, description: "[min, max]" } as const;

const enrichmentSummary = shape({
  name: str,
  family: { const: "enrichment" },
  kind: { enum: [...PROCESSOR_KINDS] },
  source: { const: "llm" },
  input: shape({ collections: names }),
  scale: { ...orNull(scale), description: "score processors: [min, max]; null otherwise" },
  default: {
    description:
      "the value stored when the model fails: a number within scale (score), a value satisfying the output schema (json), or null (embedding, or json without one)",
  },
  model: { ...str, description: "a model alias (score, json) or an embedding alias (embedding)" },
  description: nullable("string"),
  hash: str,
});

const derivationSource = shape({
  kind: { enum: ["changes", "snapshot", "current"] },
  collections: names,
  types: { ...orNull(names), description: "null: every type" },
  statuses: listOf({ enum: ["active", "draft"] }),
  keyed: { enum: [true, false, "any"] },
  keys: orNull(names),
  max_records: nullable("integer"),
  max_tokens: nullable("integer"),
  allow_empty: bool,
});

const derivationSummary = shape({
  name: str,
  family: { const: "derivation" },
  description: nullable("string"),
  source: {
    ...listOf({ enum: ["changes", "snapshot", "current"] }),
    description: "the source kinds it reads, sorted",
  },
  sources: mapOf(derivationSource),
  model: {
    ...nullable("string"),
    description: "the model alias the definition names; null: conf/models.yaml defaults.derivation",
  },
  trigger: {
    ...nullable("string"),
    description: "its inline trigger's name (<derivation>.default), or null",
  },
  tasks: listOf(shape({ id: str, use: { const: "llm" } })),
  limits: shape({
    max_tasks: int,
    max_llm_calls: int,
    max_retrieved_records: int,
    max_visible_records: int,
    max_total_tokens: int,
    max_wall_s: int,
  }),
  emit: shape({
    from: str,
    collection: str,
    type: str,
    keys: orNull(names),
    key_rule: { enum: ["any", "dotted"], description: "the form of the keys the output chooses" },
    complete: bool,
    review: { enum: ["required", "none"] },
    max_records: nullable("integer"),
  }),
  hash: str,
});

// ---- GET /triggers

const triggerSummary = shape({
  name: { ...str, description: "the manifest name: standalone, or <derivation>.default when inline" },
  inline: bool,
  on: { enum: [...TRIGGER_ON] },
  derivations: names,
  accumulator: orNull(shape({ metric: str, threshold: num, cooldown_s: int })),
  collections: {
    ...orNull(names),
    description: "write: the collections whose writes fire it (null: the derivation's source collections)",
  },
  cron: { ...nullable("string"), description: "cron: the UTC cron expression" },
  cooldown_s: {
    ...nullable("integer"),
    description: "seconds between two queues for one entity; null for cron",
  },
  description: nullable("string"),
  hash: str,
});

// ---- parameters (GET /views, GET /artifacts)

/** A parameter value: one of the value types (datetime is a string, string_array a list). */
const paramValue = { anyOf: [str, num, bool, listOf(str)] };

/** The compact parameter map: type, required and (when declared) default. */
const compactParameters = mapOf(shape({ type: valueType, required: bool, default: paramValue }, ["default"]));

/** The JSON Schema of one parameter (params.ts paramSchema). */
const parameterSchema = shape(
  {
    type: { enum: ["string", "number", "integer", "boolean", "array"] },
    format: { const: "date-time" },
    items: shape({ type: { const: "string" }, enum: listOf(str) }, ["enum"]),
    description: str,
    enum: listOf(paramValue),
    minimum: num,
    maximum: num,
    minLength: int,
    maxLength: int,
    minItems: int,
    maxItems: int,
    default: paramValue,
  },
  [
    "format",
    "items",
    "description",
    "enum",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "default",
  ],
);

/** The input schema of a view: an object of its parameters, nothing else. */
const inputSchema = {
  ...shape({
    type: { const: "object" },
    properties: mapOf(parameterSchema),
    additionalProperties: { const: false },
    required: names,
  }),
  description: "JSON Schema 2020-12 of the parameters (the body of POST /views/{name}/query)",
};

// ---- GET /views

const viewEntry = shape({
  name: str,
  version: int,
  hash: str,
  active: bool,
  kind: { enum: ["search", "graph", "graph_orphans"] },
  parameters: compactParameters,
  input_schema: inputSchema,
  collections: { ...names, description: "the collections it reads, by name, sorted" },
  required_capabilities: capabilities,
  profiles: { ...names, description: "the search profiles it reads, sorted" },
});

// ---- GET /artifacts

const maxTokens = nullable("integer");
const artifactBlock = {
  oneOf: [
    shape({
      kind: { const: "document" },
      collections: names,
      status: { enum: ["active", "draft"] },
      max_tokens: maxTokens,
    }),
    shape({ kind: { const: "view" }, view: { ...str, description: "name@version" }, max_tokens: maxTokens }),
  ],
};

const artifactSummary = shape({
  name: str,
  version: int,
  active: bool,
  kind: { const: "prompt" },
  lifecycle: { enum: ["live", "reviewed"] },
  description: nullable("string"),
  parameters: compactParameters,
  blocks: mapOf(artifactBlock),
  learning: orNull(
    shape({
      block: str,
      artifact: {
        ...nullable("string"),
        description: "the reviewed artifact improved (name@version); null: this one",
      },
    }),
  ),
  snapshot: { ...bool, description: "whether it declares a snapshot target" },
  candidate: orNull(shape({ derivation: str, keys: names })),
  hash: str,
});

// ---- GET /rank/schema

/**
 * A rank expression in its normalized list form: the operator first, then numbers, names,
 * nested expressions and {midpoint, exponent} options (the grammar of the same document).
 */
const rankExpression = {
  type: "array",
  minItems: 1,
  description:
    "a rank expression tree: a list whose first item is the operator (see grammar.operators); open, as it nests",
} as const;

const bm25 = shape({ kind: { const: "bm25" }, k1: num, b: num });
const textRank = { oneOf: [bm25, shape({ kind: { const: "ts_rank_cd" } })] };
const bm25Parameter = shape({ default: num, min: num, max: num, meaning: str });

const rankSchema = shape({
  grammar: shape({
    form: { const: "list" },
    description: str,
    operators: listOf(
      shape(
        {
          operator: str,
          arguments: names,
          modes: listOf({ enum: [...RANKED_MODES] }),
          fields: listOf({ enum: [...AGE_FIELDS] }),
          meaning: str,
        },
        ["modes", "fields"],
      ),
    ),
    modes: listOf({ enum: [...RANKED_MODES] }),
    boost: shape({ allowed: { ...names, description: "the operators a boost may use" } }),
    limits: shape({ maxDepth: int, maxNodes: int, maxChildren: int }),
  }),
  text_rank: shape({
    description: str,
    kinds: listOf({ enum: [...TEXT_RANK_KINDS] }),
    default: bm25,
    bm25: shape({
      score: str,
      idf: str,
      terms: shape({ N: str, df: str, tf: str, "|d|": str, avgdl: str }),
      parameters: shape({ k1: bm25Parameter, b: bm25Parameter }),
      normalization: str,
      range: listOf(num),
      phrase: str,
      statistics: str,
    }),
    ts_rank_cd: shape({
      score: str,
      range: { ...listOf(nullable("number")), description: "[0, null]: no upper bound" },
    }),
    ties: str,
  }),
  score_contract: shape({
    kinds: names,
    score_semantics: str,
    score_range: listOf(num),
    normalization: str,
    normalization_scope: str,
    calibrated: bool,
    higher_is_better: bool,
    native_score_field: str,
  }),
  defaults: shape({
    candidates: int,
    formulas: shape(Object.fromEntries(RANKED_MODES.map((mode) => [mode, rankExpression]))),
  }),
  scores: listOf(shape({ name: str, processor: str, scale: orNull(scale) })),
  fields: listOf(
    shape({ collection: str, version: int, fields: listOf(shape({ name: str, ...fieldDecl })) }),
  ),
  backend: shape({
    layout: str,
    profiles: listOf(
      shape({
        name: str,
        engine: { const: "postgres" },
        text_config: str,
        text_rank: textRank,
        embedding: { ...nullable("string"), description: "the embedding alias; null: no vector capability" },
        capabilities,
      }),
    ),
  }),
  package: { ...str, description: "name@semver" },
  collections: { ...names, description: "the listed collection versions (name@version)" },
});

const tags = ["discovery"];

export const COLLECTIONS: RouteContract = {
  method: "GET",
  url: "/collections",
  schema: {
    summary: "Collection summaries, bindings and hashes",
    tags,
    response: { 200: shape({ collections: listOf(collectionSummary) }) },
  },
};

export const PROCESSORS: RouteContract = {
  method: "GET",
  url: "/processors",
  schema: {
    summary: "Processor and derivation summaries",
    tags,
    response: { 200: shape({ processors: listOf({ oneOf: [enrichmentSummary, derivationSummary] }) }) },
  },
};

export const TRIGGERS: RouteContract = {
  method: "GET",
  url: "/triggers",
  schema: {
    summary: "Triggers and the derivations they queue",
    tags,
    response: { 200: shape({ triggers: listOf(triggerSummary) }) },
  },
};

export const VIEWS: RouteContract = {
  method: "GET",
  url: "/views",
  schema: {
    summary: "Every loaded view version, active or not",
    tags,
    response: { 200: shape({ views: listOf(viewEntry) }) },
  },
};

export const ARTIFACTS: RouteContract = {
  method: "GET",
  url: "/artifacts",
  schema: {
    summary: "Loaded artifact definitions",
    tags,
    response: { 200: shape({ artifacts: listOf(artifactSummary) }) },
  },
};

export const RANK_SCHEMA: RouteContract = {
  method: "GET",
  url: "/rank/schema",
  schema: {
    summary: "Rank grammar, score contract, active formulas and backend capabilities",
    tags,
    response: { 200: rankSchema },
  },
};
