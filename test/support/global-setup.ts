// Once per test run: a migrated database every test file clones, so no file pays for initdb
// (PGlite.create takes ~4 s) or for migrations.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { prepareDatabase } from "../../src/main.js";
import { openPglite } from "../../src/platform/db/index.js";
import { databaseUrlFor, testVectorLayout } from "./urls.js";

declare module "vitest" {
  export interface ProvidedContext {
    pgliteDump: string;
    serverTemplate: string;
  }
}

export default async function setup(project: TestProject) {
  const vectorLayout = testVectorLayout();
  const serverUrl = process.env.DATABASE_URL;
  if (serverUrl) {
    const template = `engram_tpl_${randomBytes(4).toString("hex")}`;
    // A connection per use, not one held for the run: a test may restart the server
    // (test/reliability/pg-restart.test.ts), and a held client would then end this process.
    const admin = async (fn: (client: pg.Client) => Promise<void>) => {
      const client = new pg.Client({ connectionString: databaseUrlFor(serverUrl, "postgres") });
      await client.connect();
      try {
        await fn(client);
      } finally {
        await client.end();
      }
    };
    await admin(async (client) => {
      await client.query(`CREATE DATABASE ${template}`);
    });
    const { openPostgres } = await import("../../src/platform/db/index.js");
    const db = await openPostgres({ connectionString: databaseUrlFor(serverUrl, template), vectorLayout });
    await prepareDatabase(db);
    await db.close();
    project.provide("serverTemplate", template);
    project.provide("pgliteDump", "");
    return () =>
      // Test files drop their own databases; this sweeps the template and any a crash left.
      admin(async (client) => {
        const { rows } = await client.query("SELECT datname FROM pg_database WHERE datname LIKE $1", [
          `${template}%`,
        ]);
        for (const row of rows) await client.query(`DROP DATABASE IF EXISTS ${row.datname} WITH (FORCE)`);
      });
  }
  const db = await openPglite({ dataDir: "memory://" });
  await prepareDatabase(db);
  const dump = await db.pglite.dumpDataDir("none");
  await db.close();
  const dir = await mkdtemp(join(tmpdir(), "engram-test-"));
  const file = join(dir, "migrated.tar");
  await writeFile(file, Buffer.from(await dump.arrayBuffer()));
  project.provide("pgliteDump", file);
  project.provide("serverTemplate", "");
  return () => rm(dir, { recursive: true, force: true });
}
