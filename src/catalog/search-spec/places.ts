// Where the active collections are indexed (docs/api.md "Scope"): profiles indexed alike
// (indexPlace) are one place, and one search spans the collections of one place. GET /context and
// POST /answer search each place and fuse them (src/search/places.ts); a publish whose default
// collections lie in several places warns that an unscoped search will be refused.
import {
  type CatalogIndex,
  type CollectionDef,
  indexPlace,
  profileCapabilities,
} from "../definition/index.js";

/** A place's collection names (sorted) and whether its profile embeds (hybrid) or not (text). */
export interface Place {
  collections: string[];
  mode: "hybrid" | "text";
  /** The search profiles indexed this way (sorted). */
  profiles: string[];
}

/**
 * The active collections (not _system) that `keep` accepts, grouped by place; places are sorted by
 * their first collection. Collections of an unavailable profile are left out.
 */
export function collectionPlaces(
  index: CatalogIndex,
  keep: (def: CollectionDef) => boolean = () => true,
): Place[] {
  const places = new Map<string, Place>();
  for (const { def } of index.collections.values()) {
    const profile = index.searchProfiles.get(def.search_profile)?.def;
    if (!def.active || def.name.startsWith("_") || !profile || !keep(def)) continue;
    const key = indexPlace(profile);
    const place = places.get(key) ?? {
      collections: [],
      mode: profileCapabilities(profile).has("vector") ? "hybrid" : "text",
      profiles: [],
    };
    if (!place.collections.includes(def.name)) place.collections.push(def.name);
    if (!place.profiles.includes(def.search_profile)) place.profiles.push(def.search_profile);
    places.set(key, place);
  }
  for (const place of places.values()) {
    place.collections.sort();
    place.profiles.sort();
  }
  return [...places.values()].sort((a, b) => ((a.collections[0] ?? "") < (b.collections[0] ?? "") ? -1 : 1));
}

/**
 * What a publish reports when the default collections (a search that names none) lie in several
 * places: such a search is refused, though GET /context and POST /answer still read them all.
 */
export function placesWarning(index: CatalogIndex): string | undefined {
  const found = collectionPlaces(index);
  if (found.length < 2) return undefined;
  const places = found.map((place) => place.profiles.join(" + ")).sort();
  return (
    `the active collections are indexed in ${places.length} different ways (search profiles ${places.join("; ")}): ` +
    "a search or GET /search that names no collections is refused (422); GET /context and POST /answer search each and fuse them. " +
    "Name collections in searches, or give the profiles the same engine, embedding, text_config and text_rank"
  );
}
