// The fields of a timeline row (GET /timeline, docs/api.md), sorted: the rows GET /delta and
// GET /records answer add `entity` to them.
export const TIMELINE_ROW = [
  "collection",
  "created_at",
  "id",
  "key",
  "occurred_at",
  "ready",
  "seq",
  "status",
  "text",
  "tombstone",
  "type",
];
