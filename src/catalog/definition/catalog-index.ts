// The selected catalog as every family's link step sees it: the definitions the package
// lists, by identity, and the two lookups every link step shares.
import type { Def } from "./def.js";
import type {
  ArtifactDef,
  DerivationDef,
  McpInterfaceDef,
  ProcessorDef,
  TriggerDef,
  ViewDef,
} from "./family-types.js";
import type { RankConf } from "./rank.js";
import type { CollectionDef, Entry, ModelsConf, PackageManifest, SearchProfileDef } from "./types.js";

export interface CatalogIndex {
  manifest: Entry<PackageManifest>;
  /** Listed collections by "name@version". */
  collections: Map<string, Entry<CollectionDef>>;
  /** Listed search profiles by name (required and optional ones the deployment can serve). */
  searchProfiles: Map<string, Entry<SearchProfileDef>>;
  models: Entry<ModelsConf>;
  rank: RankConf;
  /** Listed enrichment processors by name. */
  processors: Map<string, Entry<ProcessorDef>>;
  /** Listed derivations by name (manifests list them under processors). */
  derivations: Map<string, Entry<DerivationDef>>;
  /** Listed triggers by manifest name ("<derivation>.default" or a standalone name). */
  triggers: Map<string, Entry<TriggerDef>>;
  /** Listed views by "name@version". */
  views: Map<string, Entry<ViewDef>>;
  /** Listed artifacts by "name@version". */
  artifacts: Map<string, Entry<ArtifactDef>>;
  mcp: Entry<McpInterfaceDef> | null;
  /** Identities of every definition in the upload, listed or not ("name@version" or name). */
  defined: Record<ReferenceFamily, Set<string>>;
}

export type ReferenceFamily =
  | "collections"
  | "views"
  | "artifacts"
  | "processors"
  | "derivations"
  | "triggers"
  | "search_profiles"
  | "mcp";

/**
 * Refuses a reference that the selected package does not provide: package_not_closed when the
 * definition exists in the upload but the manifest does not list it, definition_unresolved
 * when it exists nowhere.
 */
export function missingReference(index: CatalogIndex, family: ReferenceFamily, id: string, at: Def): never {
  if (index.defined[family].has(id)) {
    at.fail(
      `${family} "${id}" is used but not listed in package ${index.manifest.def.name}@${index.manifest.def.version}`,
      "package_not_closed",
    );
  }
  at.fail(`no ${family} "${id}" is defined`, "definition_unresolved");
}

/** The active listed version of a collection, if any. */
export function activeCollection(index: CatalogIndex, name: string): Entry<CollectionDef> | undefined {
  for (const entry of index.collections.values())
    if (entry.def.name === name && entry.def.active) return entry;
  return undefined;
}
