// Normalized catalog definitions shared across the catalog's families: collections, search
// profiles, models, the package manifest. Other families' shapes are in family-types.ts,
// parameters in params.ts, rank expressions in rank.ts.
import type { Def } from "./def.js";

export type Capability = "vector" | "text" | "recent" | "structured";
export const CAPABILITIES: readonly Capability[] = ["vector", "text", "recent", "structured"];

/** Value types shared by collection fields and parameters (docs/catalog.md, "Layout and common rules"). */
export type ValueType = "string" | "number" | "integer" | "boolean" | "datetime" | "string_array";
export const VALUE_TYPES: readonly ValueType[] = [
  "string",
  "number",
  "integer",
  "boolean",
  "datetime",
  "string_array",
];

export interface FieldDecl {
  /** Dotted path into content ("customer.tier"). */
  path: string;
  type: ValueType;
  filter: boolean;
  sort: boolean;
  return: boolean;
  project: boolean;
}

export type CollectionMode = "event" | "keyed" | "mixed";

export interface CollectionDef {
  name: string;
  version: number;
  active: boolean;
  mode: CollectionMode;
  /** JSON Schema 2020-12 for content. */
  schema: Record<string, unknown>;
  fields: Record<string, FieldDecl>;
  required_processors: string[];
  search_profile: string;
  answerable: boolean;
}

/**
 * How `text_match` scores a record (docs/api.md, "Relevance: `text_match`"): Okapi BM25 over the workspace's
 * own statistics, normalized to [0, 1], or PostgreSQL's older ts_rank_cd (0 upward).
 */
export type TextRank = { kind: "bm25"; k1: number; b: number } | { kind: "ts_rank_cd" };
export const TEXT_RANK_KINDS: readonly TextRank["kind"][] = ["bm25", "ts_rank_cd"];

/** Bounds of BM25's parameters: k1 saturates term frequency, b scales length normalization. */
export const BM25_LIMITS = { k1: { min: 0, max: 10 }, b: { min: 0, max: 1 } } as const;

/** BM25 with its textbook parameters; a `bm25` text_rank without k1 or b takes them from here. */
export const DEFAULT_BM25: Readonly<Extract<TextRank, { kind: "bm25" }>> = Object.freeze({
  kind: "bm25",
  k1: 1.2,
  b: 0.75,
});

export interface SearchProfileDef {
  name: string;
  engine: "postgres";
  /** An embedding alias of conf/models.yaml; without one the profile has no vector capability. */
  embedding: string | null;
  text_config: string;
  text_rank: TextRank;
}

/**
 * Where a profile's collections are indexed and how they are ranked: profiles with the same
 * engine, embedding alias, text configuration and text ranking are one place, and one search may
 * span their collections (docs/api.md "Scope").
 */
export function indexPlace(profile: SearchProfileDef): string {
  const { engine, embedding, text_config, text_rank } = profile;
  return JSON.stringify([engine, embedding, text_config, text_rank]);
}

/** The capabilities a search profile offers (docs/catalog.md, "Search profiles"). */
export function profileCapabilities(profile: SearchProfileDef): Set<Capability> {
  const capabilities = new Set<Capability>(["text", "recent", "structured"]);
  if (profile.embedding) capabilities.add("vector");
  return capabilities;
}

export interface ProviderDef {
  /** openai: an OpenAI-compatible endpoint; fake: deterministic and lexical; local: word vectors, embeddings only. */
  adapter: "openai" | "fake" | "local";
  base_url: string | null;
  api_key_env: string | null;
  token_limit_field: "max_completion_tokens" | "max_tokens";
  json_capability: "json_schema" | "json_object" | "none";
  json_schema_strict: boolean;
}

export interface ModelAlias {
  kind: "model";
  /** provider:model, tried in order on transport failure. */
  targets: string[];
  params: { max_output_tokens?: number };
  context_tokens: number | null;
}

export interface EmbeddingAlias {
  kind: "embedding";
  provider: string;
  model: string;
  dimensions: number;
  space: string;
}

export interface ModelsConf {
  providers: Record<string, ProviderDef>;
  aliases: Record<string, ModelAlias | EmbeddingAlias>;
  defaults: { derivation?: string; fold?: string; answer?: string };
}

export interface RetentionPolicy {
  name: string;
  collection: string;
  after_days: number;
  cron: string;
  max_pages: number;
}

export interface PackageManifest {
  name: string;
  version: string;
  collections: string[];
  views: string[];
  artifacts: string[];
  processors: string[];
  triggers: string[];
  mcp: string | null;
  search_profiles: string[];
  optional_search_profiles: string[];
  retentions: RetentionPolicy[];
}

/** A parsed definition with the source it came from, so later checks can point at it. */
export interface Entry<T> {
  def: T;
  src: Def;
}

/** "name@version" */
export function ref(name: string, version: number): string {
  return `${name}@${version}`;
}
