// The search module's entry point: searches and views (service.ts), their dependencies
// (execute.ts), graph walks (graph.ts), field indexes (field-indexes.ts), and the compact rows a
// prompt reads (prompt-rows.ts).
export type { SearchDeps } from "./execute.js";
export { fieldIndexes, reconcileFieldIndexes } from "./field-indexes.js";
export { walkGraph } from "./graph.js";
export { placesSearch } from "./places.js";
export {
  countRenderTokens,
  displayScoreNames,
  escapeMarkup,
  type RenderOptions,
  type RowRecord,
  renderRow,
  renderRows,
  wrapLines,
  wrapper,
} from "./prompt-rows.js";
export {
  type QuickSearch,
  queryView,
  quickSearch,
  runView,
  type SearchLimits,
  search,
  type ViewDeps,
} from "./service.js";
