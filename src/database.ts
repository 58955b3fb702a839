// Opening the configured database for any process (server, worker, operator commands): the
// schema brought up to date. Apart from main.ts, so a command that only needs the database does
// not load the HTTP app, the worker or the model providers.
import type { Config } from "./config/index.js";
import { type Db, migrate, openDatabase, storageLayout } from "./platform/db/index.js";
import type { Logger } from "./platform/log.js";
import { alignEmbeddingLayout, type LayoutChange } from "./records/index.js";

export interface PrepareOptions {
  /**
   * Convert stored embeddings to the layout this process serves (`engram migrate
   * --vector-layout`); without it a start refuses a store holding the other layout.
   */
  convertLayout?: boolean;
}

/**
 * Brings an open database up to date: migrations, then stored embeddings in the layout this
 * process serves (docs/operations.md, Vector layouts). Returns the migrations applied and the
 * embedding layout change made, if any.
 */
export async function prepareDatabase(
  db: Db,
  options: PrepareOptions = {},
): Promise<{ migrations: string[]; embeddings?: LayoutChange }> {
  const migrations = await migrate(db);
  const embeddings = await alignEmbeddingLayout(db, { convert: options.convertLayout });
  return embeddings ? { migrations, embeddings } : { migrations };
}

/** Opens the configured database and brings its schema up to date. */
export async function openMigratedDatabase(
  config: Config,
  log: Logger,
  options: PrepareOptions = {},
): Promise<Db> {
  const db = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    vectorLayout: config.vectorLayout,
    poolSize: config.databasePoolMax,
    onIdleError: (error) => log.warn({ err: error }, "database connection lost"),
  });
  try {
    if (db.kind === "postgres" && !db.hasVector && config.vectorLayout === "auto") {
      log.warn(
        { layout: storageLayout(db) },
        "pgvector is not available on this server: vector searches scan every embedding exactly (docs/operations.md)",
      );
    }
    const prepared = await prepareDatabase(db, options);
    if (prepared.migrations.length > 0) log.info({ migrations: prepared.migrations }, "applied migrations");
    const change = prepared.embeddings;
    if (change) {
      // A conversion rewrote stored vectors and dropped or built indexes: worth an operator's eye.
      log[change.rows > 0 || change.indexes > 0 ? "warn" : "info"](
        { ...change, layout: storageLayout(db) },
        `converted the embeddings column to ${change.column}: ${change.rows} stored embeddings, ${change.indexes} HNSW indexes ${change.column === "vector" ? "built" : "dropped"}`,
      );
    }
    return db;
  } catch (error) {
    await db.close();
    throw error;
  }
}
