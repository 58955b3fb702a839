// Discovery documents built from the installed catalog: GET /collections to GET /rank/schema
// (docs/api.md, "Catalog reads").
import {
  type CatalogIndex,
  profileCapabilities,
  rankGrammar,
  ref,
  textRankSchema,
} from "../definition/index.js";
import {
  artifactSummary,
  derivationSummary,
  processorSummary,
  triggerSummary,
  viewDiscoveryEntry,
} from "../families/index.js";
import type { LoadedCatalog } from "./load.js";

/** The score contract every ranked search response carries (docs/api.md, "The search response"). */
export const SCORE_SEMANTICS = {
  score_semantics: "query_relative",
  score_range: [0, 1],
  normalization: "min_max",
  normalization_scope: "ranked_candidates",
  calibrated: false,
  higher_is_better: true,
  native_score_field: "rank_score",
} as const;

export const SCORE_CONTRACT = {
  kinds: ["rank_expression", "llm_judge", "rrf", "structured"],
  ...SCORE_SEMANTICS,
} as const;

function sortedEntries<T>(map: Map<string, T>): [string, T][] {
  return [...map.entries()].sort(([a], [b]) => a.localeCompare(b, "en", { numeric: true }));
}

/** GET /collections: normalized summaries with bindings and semantic (contract) hashes. */
export function collectionSummaries(catalog: LoadedCatalog) {
  const { index, hashes } = catalog;
  return sortedEntries(index.collections).map(([id, { def }]) => {
    const profile = index.searchProfiles.get(def.search_profile)?.def;
    return {
      name: def.name,
      version: def.version,
      active: def.active,
      mode: def.mode,
      hash: hashes[`collections:${id}`],
      schema: def.schema,
      fields: def.fields,
      answerable: def.answerable,
      bindings: {
        search_profile: def.search_profile,
        required_processors: def.required_processors,
        capabilities: profile ? [...profileCapabilities(profile)].sort() : [],
      },
    };
  });
}

/** Score names the catalog produces: score processors, by name. */
function scoreBindings(index: CatalogIndex) {
  return sortedEntries(index.processors)
    .filter(([, { def }]) => def.kind === "score")
    .map(([name, { def }]) => ({ name, processor: name, scale: def.scale ?? null }));
}

/** Declared fields by collection version, with what each may be used for. */
function fieldBindings(index: CatalogIndex) {
  return sortedEntries(index.collections).map(([, { def }]) => ({
    collection: def.name,
    version: def.version,
    fields: Object.entries(def.fields).map(([name, field]) => ({ name, ...field })),
  }));
}

/** GET /rank/schema: grammar, score contract, active formulas and bindings, backend capabilities. */
export function rankSchema(catalog: LoadedCatalog, layout: string) {
  const { index } = catalog;
  return {
    grammar: rankGrammar(),
    text_rank: textRankSchema(),
    score_contract: SCORE_CONTRACT,
    defaults: { candidates: index.rank.candidates, formulas: index.rank.formulas },
    scores: scoreBindings(index),
    fields: fieldBindings(index),
    backend: {
      layout,
      profiles: sortedEntries(index.searchProfiles).map(([name, { def }]) => ({
        name,
        engine: def.engine,
        text_config: def.text_config,
        text_rank: def.text_rank,
        embedding: def.embedding,
        capabilities: [...profileCapabilities(def)].sort(),
      })),
    },
    package: catalog.package,
    collections: sortedEntries(index.collections).map(([, { def }]) => ref(def.name, def.version)),
  };
}

/** GET /processors: enrichment processors and derivations (no prompts or task configuration). */
export function processorSummaries(catalog: LoadedCatalog) {
  const { index, hashes } = catalog;
  return [
    ...sortedEntries(index.processors).map(([name, { def }]) => ({
      ...processorSummary(def),
      hash: hashes[`processors:${name}`],
    })),
    ...sortedEntries(index.derivations).map(([name, { def }]) => ({
      ...derivationSummary(def),
      hash: hashes[`derivations:${name}`],
    })),
  ];
}

/** GET /triggers: each listed trigger and the derivations it queues. */
export function triggerSummaries(catalog: LoadedCatalog) {
  return sortedEntries(catalog.index.triggers).map(([name, { def }]) => ({
    ...triggerSummary(name, def),
    hash: catalog.hashes[`triggers:${name}`],
  }));
}

/** GET /artifacts: loaded artifact definitions (no template text). */
export function artifactSummaries(catalog: LoadedCatalog) {
  return sortedEntries(catalog.index.artifacts).map(([id, { def }]) => ({
    ...artifactSummary(def),
    hash: catalog.hashes[`artifacts:${id}`],
  }));
}

/** GET /views: every loaded (listed) view version, active or not. */
export function viewSummaries(catalog: LoadedCatalog) {
  return sortedEntries(catalog.index.views).map(([id, entry]) =>
    viewDiscoveryEntry(entry, catalog.index, catalog.hashes[`views:${id}`] as string),
  );
}
