// The system under test: a fresh database (in-memory PGlite, or a scratch database on the
// server named by DATABASE_URL, on every node when it is a Citus coordinator, dropped afterwards), migrated, the real Fastify app on a
// recording Db listening on a local port, and workspaces with the example catalog published.
import { randomBytes } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { exampleCatalogRequest } from "../src/catalog/index.js";
import { type Config, loadConfig } from "../src/config/index.js";
import { prepareDatabase } from "../src/database.js";
import { buildApp } from "../src/http/index.js";
import { EXAMPLE_CATALOG_DIR } from "../src/main.js";
import { type Db, openPglite, openPostgres } from "../src/platform/db/index.js";
import { createWorkspace, insertKey, requireWorkspaceByName } from "../src/workspaces/index.js";
import { citusCluster, createCitusDatabase, dropCitusDatabase } from "../test/support/citus.js";
import { type Embedder, withEmbedder } from "../test/support/embedders.js";
import type { Api } from "./clients.js";
import { type Recorder, recordingDb } from "./recorder.js";

export interface BenchDb {
  db: Db;
  label: "pglite" | "postgres";
  /** The scratch database's name on the server. */
  name?: string;
  /** Closes the database and drops it, unless kept; returns where a kept one is (name or dump file). */
  close: (keep?: boolean) => Promise<string | undefined>;
}

/** The server's database `name` (on the server DATABASE_URL names), in the configured layout. */
function openDatabase(url: string, name: string): Promise<Db> {
  const target = new URL(url);
  target.pathname = `/${name}`;
  // VECTOR_LAYOUT=exact measures the exact scan on a server that has pgvector.
  const { vectorLayout } = loadConfig(process.env);
  return openPostgres({ connectionString: target.toString(), vectorLayout });
}

/**
 * The bench's database: a fresh scratch one, or with `reuse` one a run kept (--keep): the name of
 * a server database (never dropped here), or on PGlite the data directory dump it was kept as.
 */
export async function openBenchDb(reuse?: string): Promise<BenchDb> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    const db = await openPglite({
      dataDir: "memory://",
      ...(reuse ? { loadDataDir: new Blob([await readFile(reuse)]) } : {}),
    });
    // Kept as a data directory dump, which openPglite's loadDataDir starts from.
    const close = async (keep = false) => {
      const file = join(tmpdir(), `engram_bench_${randomBytes(4).toString("hex")}.tar.gz`);
      if (keep) await writeFile(file, Buffer.from(await (await db.pglite.dumpDataDir("gzip")).arrayBuffer()));
      await db.close();
      return keep ? file : undefined;
    };
    return { db, label: "pglite", close };
  }
  if (reuse) {
    const db = await openDatabase(url, reuse);
    const close = async () => {
      await db.close();
      return reuse;
    };
    return { db, label: "postgres", name: reuse, close };
  }
  const name = `engram_bench_${randomBytes(4).toString("hex")}`;
  // On a Citus coordinator the scratch database is made on every node of its cluster.
  const cluster = await citusCluster(url);
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  if (cluster) await createCitusDatabase(url, cluster, name);
  else await admin.query(`CREATE DATABASE ${name}`);
  const db = await openDatabase(url, name);
  return {
    db,
    label: "postgres",
    name,
    close: async (keep = false) => {
      await db.close();
      if (!keep && cluster) await dropCitusDatabase(url, cluster, name);
      else if (!keep) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
      return keep ? name : undefined;
    },
  };
}

export interface System {
  /** The real database: the worker, the floor replay and the bench's own checks use it. */
  db: Db;
  /** The proxy the app runs on. */
  recorder: Recorder;
  config: Config;
  url: string;
  close: () => Promise<void>;
}

export async function startSystem(db: Db, options: { modelEndpoints?: string } = {}): Promise<System> {
  await prepareDatabase(db);
  // One key sends every request of the bench: no rate limit unless the environment sets one;
  // the bench's own answer model is an allowed endpoint.
  const config = loadConfig({
    RATE_LIMIT_MAX: "0",
    ...(options.modelEndpoints ? { MODEL_ENDPOINTS: options.modelEndpoints } : {}),
    ...process.env,
    LOG_LEVEL: "silent",
  });
  const recording = recordingDb(db);
  const app = await buildApp({ config, db: recording.db, version: "bench" });
  const url = await app.listen({ port: 0, host: "127.0.0.1" });
  return { db, recorder: recording.recorder, config, url, close: () => app.close() };
}

export interface BenchWorkspace {
  id: string;
  name: string;
  key: string;
}

/** A workspace with the example catalog published through the API (as an operator would). */
export async function createBenchWorkspace(
  db: Db,
  api: Api,
  name: string,
  embedder: Embedder,
): Promise<BenchWorkspace> {
  const created = await createWorkspace(db, name);
  const request = withEmbedder(await exampleCatalogRequest(EXAMPLE_CATALOG_DIR), embedder);
  await api.post(created.api_key, "/catalog", request);
  return { id: created.id, name, key: created.api_key };
}

/** A workspace of a reused database, with a new key for this run (its first key was shown once). */
export async function reuseBenchWorkspace(db: Db, name: string): Promise<BenchWorkspace> {
  const workspace = await requireWorkspaceByName(db, name);
  const key = await insertKey(db, workspace, { name: "bench", scope: "read_write" });
  return { id: workspace.id, name, key: key.api_key };
}

/** What the database says it is (PGlite answers with the PostgreSQL version it embeds). */
export async function serverVersion(db: Db): Promise<string> {
  const { rows } = await db.query<{ server_version: string }>("SHOW server_version");
  return rows[0]?.server_version ?? "unknown";
}

export async function databaseBytes(db: Db): Promise<number> {
  const { rows } = await db.query<{ bytes: number }>(
    "SELECT pg_database_size(current_database())::bigint AS bytes",
  );
  return rows[0]?.bytes ?? 0;
}

/** A deployment that lists no model endpoint and holds no secret: the bench's models are offline (fake or local). */
export const FAKE_MODELS_ONLY = {
  modelEndpoints: [],
  metricsToken: undefined,
  adminToken: undefined,
  databaseUrl: undefined,
  wordVectorsCache: undefined,
};
