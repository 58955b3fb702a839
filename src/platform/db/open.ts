import { lockDataDir } from "./datadir-lock.js";
import { openPglite } from "./pglite.js";
import { openPostgres } from "./postgres.js";
import type { Db, VectorLayout } from "./types.js";

export const MEMORY_DATA_DIR = "memory://";

export interface DatabaseSettings {
  databaseUrl: string | undefined;
  dataDir: string;
  /** Server only; embedded storage always has pgvector. */
  vectorLayout?: VectorLayout;
  /** Server only: connections in the pool. */
  poolSize?: number;
  onIdleError?: (error: Error) => void;
}

/**
 * Opens the configured database: the PostgreSQL server when a URL is set, otherwise the
 * embedded store in dataDir, locked to this process until close.
 */
export async function openDatabase(settings: DatabaseSettings): Promise<Db> {
  if (settings.databaseUrl) {
    return openPostgres({
      connectionString: settings.databaseUrl,
      vectorLayout: settings.vectorLayout,
      poolSize: settings.poolSize,
      onIdleError: settings.onIdleError,
    });
  }
  if (settings.dataDir === MEMORY_DATA_DIR) return openPglite({ dataDir: MEMORY_DATA_DIR });
  const lock = await lockDataDir(settings.dataDir);
  try {
    const db = await openPglite({ dataDir: settings.dataDir });
    return {
      ...db,
      async close() {
        await db.close();
        await lock.release();
      },
    };
  } catch (error) {
    await lock.release();
    throw error;
  }
}
