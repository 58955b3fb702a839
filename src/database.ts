// Opening the configured database for any process (server, worker, operator commands): the
// schema brought up to date. Apart from main.ts, so a command that only needs the database does
// not load the HTTP app, the worker or the model providers.
import type { Config } from "./config/index.js";
import { type Db, migrate, openDatabase, storageLayout } from "./platform/db/index.js";
import type { Logger } from "./platform/log.js";
import { alignEmbeddingLayout } from "./records/index.js";

/**
 * Brings an open database up to date: migrations, then stored embeddings in the layout this
 * process serves. Returns the migrations applied and the embedding conversion made, if any.
 */
export async function prepareDatabase(db: Db): Promise<{ migrations: string[]; embeddings?: string }> {
  const migrations = await migrate(db);
  const embeddings = await alignEmbeddingLayout(db);
  return embeddings ? { migrations, embeddings } : { migrations };
}

/** Opens the configured database and brings its schema up to date. */
export async function openMigratedDatabase(config: Config, log: Logger): Promise<Db> {
  const db = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    vectorLayout: config.vectorLayout,
    poolSize: config.databasePoolMax,
    onIdleError: (error) => log.warn({ err: error }, "database connection lost"),
  });
  try {
    const prepared = await prepareDatabase(db);
    if (prepared.migrations.length > 0) log.info({ migrations: prepared.migrations }, "applied migrations");
    if (prepared.embeddings) {
      log.info({ column: prepared.embeddings, layout: storageLayout(db) }, "converted stored embeddings");
    }
    return db;
  } catch (error) {
    await db.close();
    throw error;
  }
}
