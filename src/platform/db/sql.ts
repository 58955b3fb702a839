// SQL of the database layer itself: migrations, the Citus layout, the session's settings, the
// workspace lock and the checks made when a database is opened. Each statement says why it exists.
import { HNSW_SETTINGS } from "./types.js";

/** One migration at a time per database: concurrent starts take turns, the second finds all applied. */
export const MIGRATION_LOCK = "SELECT pg_advisory_xact_lock(hashtextextended('engram.migrate', 0))";

/** Which migrations ran; created by the first migration run, before any other table. */
export const CREATE_MIGRATIONS_TABLE = `
  CREATE TABLE IF NOT EXISTS schema_migrations (
    id integer PRIMARY KEY,
    name text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
  )`;

export const APPLIED_MIGRATIONS = "SELECT id FROM schema_migrations";

/** A migration applied, in the transaction that applied it. */
export const RECORD_MIGRATION = "INSERT INTO schema_migrations (id, name) VALUES ($1, $2)";

/** The transaction-scoped advisory lock of one workspace: its writes take turns (src/records/write.ts). */
export const WORKSPACE_LOCK_SQL =
  "SELECT pg_advisory_xact_lock(hashtextextended('engram.workspace:' || $1, 0))";

/** HNSW_SETTINGS as SET statements, for a session that is already open (PGlite). */
export const HNSW_SESSION_SQL = Object.entries(HNSW_SETTINGS)
  .map(([name, value]) => `SET ${name} = ${value}`)
  .join("; ");

/** pgvector in this database; a server refuses it to a user who may not create extensions. */
export const CREATE_VECTOR = "CREATE EXTENSION IF NOT EXISTS vector";

// Whether pgvector is installed in this database, and whether the server could install it (a
// row in pg_available_extensions: its files are in the server's extension directory).
export const VECTOR_STATE = `SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector') AS installed,
  EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') AS available`;

/** The database's name, for a message that names it or a setting made on it. */
export const CURRENT_DATABASE = "SELECT current_database() AS db";

/** Prepared statements inline their parameters as literals, which need standard strings (literal.ts). */
export const STANDARD_STRINGS = "SELECT current_setting('standard_conforming_strings') AS setting";

/** The cheapest statement the database must answer: no table read, no lock (liveness.ts). */
export const PING = "SELECT 1";

// Whether the server vacuums and analyzes Engram's tables itself (server-maintenance.ts): its
// autovacuum settings, and the tables that opt out of it.
export const AUTOVACUUM_SETTINGS = `
  SELECT current_setting('autovacuum') = 'on' AS autovacuum, current_setting('track_counts') = 'on' AS track_counts,
    ARRAY(SELECT c.relname::text FROM pg_class c
      WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p')
        AND EXISTS (SELECT 1 FROM unnest(c.reloptions) AS o(option)
          WHERE o.option ~* '^autovacuum_enabled=(false|off|no|0)$')
      ORDER BY 1) AS disabled`;

/** PGlite's own maintenance (it has no autovacuum): both analyze, so rows written are counted analyzed. */
export const ANALYZE = "ANALYZE";
export const VACUUM_ANALYZE = "VACUUM ANALYZE";
export type MaintenanceCommand = typeof ANALYZE | typeof VACUUM_ANALYZE;

/** A maintenance command on one table, or on the whole database. */
export const maintenanceSql = (command: MaintenanceCommand, table?: string) =>
  table ? `${command} ${table}` : command;

/** The rows of a SELECT as one JSON array, in its order: an aggregate reads its subquery's rows in the order it sorted them. */
export const jsonRowsSql = (select: string) => `SELECT json_agg(j) AS rows FROM (${select}) j`;

/**
 * Runs a prepared statement with its parameters inlined as literals, planned generically: PGlite
 * would otherwise plan the first five executions for their values (pglite-statements.ts).
 */
export const executeGenericSql = (name: string, args: string) =>
  `SET LOCAL plan_cache_mode = force_generic_plan; EXECUTE ${name}${args}`;

// Citus (citus.ts).

export const HAS_CITUS = "SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') AS citus";

/** Whether the schema was laid out for Citus: a database migrated without it cannot be converted. */
export const CITUS_PLACED =
  "SELECT EXISTS (SELECT 1 FROM pg_dist_partition WHERE logicalrelid = to_regclass('workspaces')) AS placed";

/**
 * A table created with a foreign key to a reference table would otherwise become a "Citus local
 * table" at once, which can then be neither distributed (identity columns) nor kept plain.
 */
export const CITUS_MIGRATION_SETTINGS = "SET LOCAL citus.enable_local_reference_table_foreign_keys = off";

// Tables of this schema that Citus does not know yet (shards are hidden from pg_class).
export const UNPLACED_TABLES = `
  SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p')
    AND NOT EXISTS (SELECT 1 FROM pg_dist_partition p WHERE p.logicalrelid = c.oid)
  ORDER BY c.oid`;

export const CREATE_REFERENCE_TABLE = "SELECT create_reference_table($1)";
export const CREATE_DISTRIBUTED_TABLE = "SELECT create_distributed_table($1, 'workspace_id')";

/** A table's foreign keys: a coordinator table cannot keep one to a reference table's rows. */
export const FOREIGN_KEYS =
  "SELECT conname FROM pg_constraint WHERE conrelid = $1::regclass AND contype = 'f'";

export const dropConstraintSql = (table: string, constraint: string) =>
  `ALTER TABLE ${table} DROP CONSTRAINT ${constraint}`;

/** A setting made on the database: Citus propagates ALTER DATABASE … SET to every node's sessions. */
export const databaseSettingSql = (database: string, setting: string, value: string) =>
  `ALTER DATABASE ${database} SET ${setting} = '${value}'`;
