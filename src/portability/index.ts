export { type ExportRequest, exportWorkspace } from "./export.js";
export { type Counts, FORMAT, type Header } from "./format.js";
export { type ImportRequest, type ImportResult, importWorkspace } from "./import.js";
