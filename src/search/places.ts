// Searching the active collections wherever they are indexed (docs/api.md "Scope"): one search
// spans collections of one place (profiles indexed alike, indexPlace), so collections in several
// places are searched as one source per place, fused by RRF. POST /answer and GET /context read
// this way, so a catalog with several search profiles (a client's fragment beside the package's
// own) never makes them fail.
import type { Place } from "../catalog/index.js";

/**
 * The search request (a POST /search body) of q over the places within `scope` (entities, time
 * window), as of a moment when given: one search in a single place, else one source per place
 * fused by RRF, each with its place's mode and the same k.
 */
export function placesSearch(
  places: Place[],
  query: { q: string; k: number; scope: object; asOf?: string },
): Record<string, unknown> {
  const scoped = (place: Place) => ({ ...query.scope, collections: place.collections });
  const moment = query.asOf === undefined ? {} : { as_of: query.asOf };
  const [only, ...others] = places;
  if (only && others.length === 0) {
    return { mode: only.mode, q: query.q, k: query.k, scope: scoped(only), ...moment };
  }
  return {
    q: query.q,
    k: query.k,
    ...moment,
    sources: places.map((place, i) => ({
      name: `place_${i + 1}`,
      mode: place.mode,
      k: query.k,
      scope: scoped(place),
    })),
    fuse: { kind: "rrf" },
  };
}
