import { readdir, readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import {
  beginCitusMigration,
  checkCitusLayout,
  hasCitus,
  placeNewTables,
  setShardSettings,
} from "./citus.js";
import * as sql from "./sql.js";
import { splitStatements } from "./sql-script.js";
import type { Db } from "./types.js";

const MIGRATIONS_DIR = fileURLToPath(new URL("./migrations/", import.meta.url));
const MIGRATION_FILE = /^(\d{4})_[a-z0-9_]+\.sql$/;

export interface Migration {
  id: number;
  name: string;
  sql: string;
}

export async function loadMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((file) => MIGRATION_FILE.test(file)).sort();
  const migrations: Migration[] = [];
  for (const file of files) {
    const id = Number(file.slice(0, 4));
    if (migrations.some((m) => m.id === id)) throw new Error(`two migrations numbered ${id}`);
    migrations.push({ id, name: file.replace(/\.sql$/, ""), sql: await readFile(dir + file, "utf8") });
  }
  return migrations;
}

/**
 * Applies the numbered migrations not yet recorded, in order, in one transaction. The
 * advisory lock makes concurrent starts against one server take turns: the second finds
 * everything applied. Returns the names applied by this call. On a database with the citus
 * extension each statement goes alone (Citus refuses several DDL statements in one query) and
 * each table it creates is placed on the cluster at once (citus.ts).
 */
export async function migrate(db: Db, migrations?: Migration[]): Promise<string[]> {
  const pending = migrations ?? (await loadMigrations());
  return db.transaction(async (tx) => {
    await tx.query(sql.MIGRATION_LOCK);
    await tx.query(sql.CREATE_MIGRATIONS_TABLE);
    const { rows } = await tx.query<{ id: number }>(sql.APPLIED_MIGRATIONS);
    const applied = new Set(rows.map((row) => row.id));
    const citus = await hasCitus(tx);
    if (citus) {
      await checkCitusLayout(tx, applied.size > 0);
      await beginCitusMigration(tx);
    }
    const names: string[] = [];
    for (const migration of pending) {
      if (applied.has(migration.id)) continue;
      if (citus) {
        for (const statement of splitStatements(migration.sql)) {
          await tx.query(statement);
          await placeNewTables(tx);
        }
      } else {
        await tx.exec(migration.sql);
      }
      await tx.query(sql.RECORD_MIGRATION, [migration.id, migration.name]);
      names.push(migration.name);
    }
    if (citus) await setShardSettings(tx);
    return names;
  });
}
