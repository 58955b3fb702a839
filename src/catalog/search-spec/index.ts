// The SearchSpec language (docs/api.md, "Search"): the search request, its validation against
// the selected catalog and its JSON Schema. Above ../definition, below the families that embed a
// search (views) and the publishing code.
export { INCLUDE_FIELDS, type IncludeField } from "./include.js";
export { collectionPlaces, type Place, placesWarning } from "./places.js";
export { Issues, type Path } from "./read.js";
export { SEARCH_SPEC_SCHEMA } from "./schema.js";
export { type FieldCondition, type OrderBy, targetProfiles } from "./scope.js";
export {
  type CombinedSearchSpec,
  FENCE_TAG,
  type GraphBoost,
  type Rerank,
  SEARCH_BOUNDS,
  type SearchLimits,
  type SearchPart,
  type SearchSpec,
  searchParts,
  validateSearchSpec,
} from "./spec.js";
