import * as sql from "./sql.js";
import { HNSW_SETTINGS, type Queryable } from "./types.js";

/**
 * Where each table lives on a Citus cluster (docs/scaling.md). Per-workspace
 * tables are distributed by workspace_id in one colocation group, so a statement that names its
 * workspace runs on the one node holding it; the global tables are reference tables
 * (replicated to every node); the job queue stays a plain table on the coordinator, where
 * FOR UPDATE SKIP LOCKED claims across workspaces in one index scan.
 */
export const CITUS_PLACEMENT: Readonly<Record<string, "distributed" | "reference" | "coordinator">> = {
  workspaces: "reference",
  workspace_keys: "reference",
  workspace_key_uses: "reference",
  vector_indexes: "reference",
  jobs: "coordinator",
  schema_migrations: "coordinator",
  catalog_installs: "distributed",
  workspace_counters: "distributed",
  records: "distributed",
  heads: "distributed",
  cursors: "distributed",
  embeddings: "distributed",
  record_access: "distributed",
  backfills: "distributed",
  runs: "distributed",
  derivation_state: "distributed",
  trigger_ticks: "distributed",
  artifact_snapshots: "distributed",
  artifact_uses: "distributed",
  text_stats: "distributed",
};

/** True when the database has the citus extension: migrations then lay the schema out for it. */
export async function hasCitus(db: Queryable): Promise<boolean> {
  const { rows } = await db.query<{ citus: boolean }>(sql.HAS_CITUS);
  return rows[0]?.citus === true;
}

/**
 * Refuses a database migrated before it had the citus extension: its tables are plain, holding
 * rows and keys Citus cannot distribute in place, so it would be half converted.
 */
export async function checkCitusLayout(tx: Queryable, migrated: boolean): Promise<void> {
  if (!migrated) return;
  const { rows } = await tx.query<{ placed: boolean }>(sql.CITUS_PLACED);
  if (!rows[0]?.placed) {
    throw new Error(
      "this database was migrated without Citus: Engram does not convert a database in place; migrate a new database on the cluster",
    );
  }
}

/**
 * Settings for a migration transaction on Citus. A table created with a foreign key to a
 * reference table would otherwise become a "Citus local table" at once, which can then be
 * neither distributed (identity columns) nor kept as a plain coordinator table.
 */
export async function beginCitusMigration(tx: Queryable): Promise<void> {
  await tx.query(sql.CITUS_MIGRATION_SETTINGS);
}

/**
 * Places every table the last statement created, as CITUS_PLACEMENT says. Called after each
 * statement of a migration, so a table is distributed before anything references it. A table
 * missing from CITUS_PLACEMENT stops the migration: each new table needs a decision.
 */
export async function placeNewTables(tx: Queryable): Promise<void> {
  const { rows } = await tx.query<{ relname: string }>(sql.UNPLACED_TABLES);
  for (const { relname } of rows) {
    const placement = CITUS_PLACEMENT[relname];
    if (placement === undefined) {
      throw new Error(
        `table ${relname} has no placement on Citus: add it to CITUS_PLACEMENT (src/platform/db/citus.ts)`,
      );
    }
    if (placement === "reference") {
      await tx.query(sql.CREATE_REFERENCE_TABLE, [relname]);
    } else if (placement === "distributed") {
      await tx.query(sql.CREATE_DISTRIBUTED_TABLE, [relname]);
    } else {
      // A coordinator table cannot reference a reference table's rows (they live in its shard,
      // not in the coordinator's shell table): its workspace's rows are deleted explicitly.
      const { rows: keys } = await tx.query<{ conname: string }>(sql.FOREIGN_KEYS, [relname]);
      for (const { conname } of keys) await tx.query(sql.dropConstraintSql(relname, conname));
    }
  }
}

/**
 * Session settings the shards' own sessions must see: connection options reach only the
 * coordinator's session, while ALTER DATABASE … SET is propagated to every node by Citus.
 */
export async function setShardSettings(tx: Queryable): Promise<void> {
  const { rows } = await tx.query<{ db: string }>(sql.CURRENT_DATABASE);
  const name = `"${(rows[0]?.db ?? "").replace(/"/g, '""')}"`;
  for (const [setting, value] of Object.entries(HNSW_SETTINGS)) {
    await tx.query(sql.databaseSettingSql(name, setting, value));
  }
}
