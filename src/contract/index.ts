// The wire contract both shells share (src/http serves it, src/mcp answers tool calls with it):
// each route's request and reply schemas, one file per route family, and problem details. It
// imports neither shell.
export { CREATE_WORKSPACE, DELETE_WORKSPACE, LIST_WORKSPACES } from "./admin.js";
export { ANSWER } from "./answer.js";
export {
  CREATE_USE,
  CURRENT_SNAPSHOT,
  type FeedbackLimits,
  GET_USE,
  RENDER_ARTIFACT,
  SNAPSHOT_ARTIFACT,
  submitFeedbackRoute,
} from "./artifacts.js";
export { CANCEL_BACKFILL, GET_BACKFILL, LIST_BACKFILLS, START_BACKFILL } from "./backfill.js";
export {
  CATALOG_COMPATIBILITY,
  CATALOG_DEFINITIONS,
  CATALOG_PRUNE,
  DESCRIBE_CATALOG,
  PUBLISH_CATALOG,
} from "./catalog.js";
export { shape } from "./closed-object.js";
export { CONTEXT } from "./context.js";
export { GET_RUN, LIST_RUNS, PROMOTE, REBIND, REQUEST_RUN } from "./derivations.js";
export { ARTIFACTS, COLLECTIONS, PROCESSORS, RANK_SCHEMA, TRIGGERS, VIEWS } from "./discovery.js";
export { DERIVED_LIST_MAX, ERASE } from "./erase.js";
export { HEALTH, ROOT } from "./health.js";
export { GET_JOB, LIST_JOBS, RETRY_JOB } from "./jobs.js";
export { CREATE_KEY, LIST_KEYS, REVOKE_KEY } from "./keys.js";
export { PROBLEM_CONTENT_TYPE, problemBody, problemSchema } from "./problem.js";
export {
  CITED_BY,
  DELTA,
  DOCUMENT,
  DOCUMENT_HISTORY,
  GET_RECORD,
  LIST_RECORDS,
  MOVE_CURSOR,
  TIMELINE,
  WRITE_RECORDS,
} from "./records.js";
export { REINDEX } from "./reindex.js";
export { type RouteContract, successBody } from "./route.js";
export { bool, type Schema, uuid } from "./schema-parts.js";
export { QUERY_VIEW, QUICK_SEARCH, SEARCH, VIEW_RESPONSES } from "./search.js";
export { MCP, TOOLS, TOOLS_PROTOCOL } from "./tools.js";
export { ACTIVITY_DAYS_MAX, ENTITIES, WORKSPACE, WORKSPACE_ACTIVITY } from "./workspace.js";
