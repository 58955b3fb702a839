// A catalog's definitions one by one, as a publish normalized them (GET /catalog/definitions), and
// what a publish would change among them (POST /catalog?dry_run=true&diff=true): the definitions
// added, removed and changed between the installed catalog and an upload, by the family:id ids
// GET /catalog's metadata.definitions hashes, each changed one with both normalized forms.
import { canonicalJson } from "../../platform/hash.js";
import type { LoadedCatalog } from "./load.js";

/** The normalized definition behind one "family:id" of a catalog's hashes. */
export function definitionOf(catalog: LoadedCatalog, id: string): unknown {
  const { index } = catalog;
  const at = id.indexOf(":");
  const family = id.slice(0, at);
  const name = id.slice(at + 1);
  const families: Record<string, () => unknown> = {
    collections: () => index.collections.get(name)?.def,
    search_profiles: () => index.searchProfiles.get(name)?.def,
    processors: () => index.processors.get(name)?.def,
    derivations: () => index.derivations.get(name)?.def,
    triggers: () => index.triggers.get(name)?.def,
    views: () => index.views.get(name)?.def,
    artifacts: () => index.artifacts.get(name)?.def,
    mcp: () => index.mcp?.def,
    conf: () => (name === "models" ? index.models.def : name === "rank" ? index.rank : undefined),
  };
  const def = families[family]?.();
  if (def === undefined) throw new Error(`catalog definition ${id} has no loaded definition`);
  return def;
}

export interface DefinitionsDiff {
  /** The package now installed ("name@semver"), or null before the first publish. */
  from: string | null;
  to: string;
  added: string[];
  removed: string[];
  /** Same id, another normalized form: both. The manifest is "package" here when it changed. */
  changed: { id: string; before: unknown; after: unknown }[];
}

/** What installing `next` over `current` changes among the definitions, each list sorted by id. */
export function definitionsDiff(current: LoadedCatalog | undefined, next: LoadedCatalog): DefinitionsDiff {
  const before = current?.hashes ?? {};
  const after = next.hashes;
  const ids = (hashes: Record<string, string>) => Object.keys(hashes).sort();
  // Compared whole, not by hash: a hash leaves out what reads nothing differently (a description).
  const changed = ids(after)
    .filter((id) => id in before)
    .map((id) => ({ id, before: definitionOf(current as LoadedCatalog, id), after: definitionOf(next, id) }))
    .filter((pair) => canonicalJson(pair.before) !== canonicalJson(pair.after));
  if (current && canonicalJson(current.index.manifest.def) !== canonicalJson(next.index.manifest.def)) {
    changed.unshift({ id: "package", before: current.index.manifest.def, after: next.index.manifest.def });
  }
  return {
    from: current?.package ?? null,
    to: next.package,
    added: ids(after).filter((id) => !(id in before)),
    removed: ids(before).filter((id) => !(id in after)),
    changed,
  };
}
