export { DataDirLockedError } from "./datadir-lock.js";
export { queryRowsAsJson } from "./json-rows.js";
export { sqlLiteral, sqlTextArray } from "./literal.js";
export { databaseAnswers } from "./liveness.js";
export { loadMigrations, migrate } from "./migrate.js";
export { MEMORY_DATA_DIR, openDatabase } from "./open.js";
export { openPglite } from "./pglite.js";
export { openPostgres } from "./postgres.js";
export { maintenanceWarnings } from "./server-maintenance.js";
export { DatabaseSetupError } from "./setup-error.js";
export { parseJsonTimestamptz } from "./timestamps.js";
export {
  type ConnectionStats,
  type Db,
  type DbKind,
  type Queryable,
  type QueryResult,
  storageLayout,
  type VectorLayout,
} from "./types.js";
