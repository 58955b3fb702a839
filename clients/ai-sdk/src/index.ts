export { TOOL_ROLES, type ToolKind, type ToolSelection } from "./select.js";
export { type EngramSource, type EngramTools, type EngramToolsOptions, engramTools } from "./tools.js";
