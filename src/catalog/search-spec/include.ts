// The record fields a SearchSpec may `include` (docs/api.md, "`POST /search`: the SearchSpec").
// A leaf module with no imports: the console's search form bundles it too.
export const INCLUDE_FIELDS = [
  "text",
  "scores",
  "collection",
  "collection_version",
  "entity",
  "type",
  "key",
  "status",
  "depth",
  "occurred_at",
  "created_at",
  "run_id",
] as const;
export type IncludeField = (typeof INCLUDE_FIELDS)[number];
