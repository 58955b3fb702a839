// GET /catalog/prune: which definitions of the installed upload could be deleted. Read-only.
// Candidates are the definitions the package does not list, and listed collection versions
// that are not active. A candidate is safe to delete when nothing references it: no stored
// record carries its contract and no listed definition binds it.
import type { Queryable } from "../../platform/db/index.js";
import type { CatalogIndex, ReferenceFamily } from "../definition/index.js";
import type { ContractUsage, StoredContracts } from "./compatibility.js";
import type { InstalledCatalog } from "./load.js";

export interface PruneCandidate {
  /** family:name@version (or family:name for unversioned families) */
  definition: string;
  listed: boolean;
  references: string[];
  reference_kind: "records" | "definitions" | "records_and_definitions" | "none";
  safe_to_delete: boolean;
}

const LISTED: Record<ReferenceFamily, (index: CatalogIndex) => Iterable<string>> = {
  collections: (index) => index.collections.keys(),
  views: (index) => index.views.keys(),
  artifacts: (index) => index.artifacts.keys(),
  processors: (index) => index.processors.keys(),
  derivations: (index) => index.derivations.keys(),
  triggers: (index) => index.triggers.keys(),
  search_profiles: (index) => index.searchProfiles.keys(),
  mcp: (index) => (index.mcp ? [`${index.mcp.def.name}@${index.mcp.def.version}`] : []),
};

/** Listed definitions that bind an exact collection version. */
function collectionBinders(index: CatalogIndex, id: string): string[] {
  const binders: string[] = [];
  for (const tool of index.mcp?.def.tools ?? []) {
    if (tool.binding?.kind === "collection" && tool.binding.reference === id) {
      binders.push(`mcp:${index.mcp?.def.name}@${index.mcp?.def.version}#${tool.name}`);
    }
  }
  for (const policy of index.manifest.def.retentions) {
    if (policy.collection === id) binders.push(`retentions:${policy.name}`);
  }
  return binders;
}

function kindOf(records: boolean, definitions: boolean): PruneCandidate["reference_kind"] {
  if (records && definitions) return "records_and_definitions";
  if (records) return "records";
  return definitions ? "definitions" : "none";
}

export async function pruneReport(
  tx: Queryable,
  workspaceId: string,
  stored: StoredContracts,
  catalog: InstalledCatalog,
) {
  const { index } = catalog;
  const usage = new Map<string, ContractUsage[]>();
  for (const group of await stored.usage(tx, workspaceId)) {
    const id = `${group.collection}@${group.version}`;
    usage.set(id, [...(usage.get(id) ?? []), group]);
  }
  const candidates: PruneCandidate[] = [];
  for (const family of Object.keys(LISTED) as ReferenceFamily[]) {
    const listed = new Set(LISTED[family](index));
    const inactiveListed =
      family === "collections"
        ? [...index.collections].filter(([, e]) => !e.def.active).map(([id]) => id)
        : [];
    const ids = [...[...index.defined[family]].filter((id) => !listed.has(id)), ...inactiveListed].sort();
    for (const id of ids) {
      const records =
        family === "collections" ? (usage.get(id) ?? []).map((g) => `records:${g.count}@${g.hash}`) : [];
      const binders = family === "collections" && listed.has(id) ? collectionBinders(index, id) : [];
      const references = [...records, ...binders];
      candidates.push({
        definition: `${family}:${id}`,
        listed: listed.has(id),
        references,
        reference_kind: kindOf(records.length > 0, binders.length > 0),
        safe_to_delete: references.length === 0,
      });
    }
  }
  return {
    package: catalog.package,
    candidates,
    safe_to_delete: candidates.filter((c) => c.safe_to_delete).map((c) => c.definition),
  };
}
