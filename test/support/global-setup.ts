// Once per test run: a migrated database every test file clones, so no file pays for initdb
// (PGlite.create takes ~4 s) or for migrations.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { prepareDatabase } from "../../src/database.js";
import { openPglite } from "../../src/platform/db/index.js";
import { adminQuery, withoutSessions } from "./admin.js";
import { type CitusCluster, citusCluster, createCitusDatabase } from "./citus.js";
import { databaseUrlFor, testVectorLayout } from "./urls.js";

declare module "vitest" {
  export interface ProvidedContext {
    pgliteDump: string;
    /** The same migrated store as a data directory on disk, for child processes to copy. */
    pgliteDataDir: string;
    serverTemplate: string;
    /** DATABASE_URL is a Citus coordinator. */
    citus: boolean;
    /** A Citus cluster with workers, where each test file builds its own database (citus.ts). */
    citusCluster: CitusCluster | null;
  }
}

export default async function setup(project: TestProject) {
  const vectorLayout = testVectorLayout();
  const serverUrl = process.env.DATABASE_URL;
  if (serverUrl) {
    const template = `engram_tpl_${randomBytes(4).toString("hex")}`;
    const cluster = await citusCluster(serverUrl);
    project.provide("citus", cluster !== undefined);
    if (cluster && cluster.workers.length > 0) {
      project.provide("citusCluster", cluster);
      project.provide("serverTemplate", "");
      project.provide("pgliteDump", "");
      project.provide("pgliteDataDir", "");
      return;
    }
    project.provide("citusCluster", null);
    if (cluster) await createCitusDatabase(serverUrl, cluster, template);
    else await adminQuery(serverUrl, `CREATE DATABASE ${template}`);
    const { openPostgres } = await import("../../src/platform/db/index.js");
    const db = await openPostgres({ connectionString: databaseUrlFor(serverUrl, template), vectorLayout });
    await prepareDatabase(db);
    await db.close();
    project.provide("serverTemplate", template);
    project.provide("pgliteDump", "");
    project.provide("pgliteDataDir", "");
    // Test files drop their own databases; this sweeps the template and any a crash left.
    return async () => {
      const left = await adminQuery<{ datname: string }>(
        serverUrl,
        "SELECT datname FROM pg_database WHERE datname LIKE $1",
        [`${template}%`],
      );
      for (const { datname } of left) {
        await withoutSessions(serverUrl, datname, `DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
      }
    };
  }
  const db = await openPglite({ dataDir: "memory://" });
  await prepareDatabase(db);
  const dump = await db.pglite.dumpDataDir("none");
  await db.close();
  const dir = await mkdtemp(join(tmpdir(), "engram-test-"));
  const file = join(dir, "migrated.tar");
  await writeFile(file, Buffer.from(await dump.arrayBuffer()));
  // `engram` children (CLI, serve) open a data directory, where initdb alone takes seconds.
  const dataDir = join(dir, "data");
  await (await openPglite({ dataDir, loadDataDir: dump })).close();
  project.provide("pgliteDump", file);
  project.provide("pgliteDataDir", dataDir);
  project.provide("serverTemplate", "");
  project.provide("citusCluster", null);
  project.provide("citus", false);
  return () => rm(dir, { recursive: true, force: true });
}
