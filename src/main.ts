// Composition root: config → database → migrations → demo bootstrap → HTTP.
import { fileURLToPath } from "node:url";
import type { FastifyInstance } from "fastify";
import { exampleCatalogRequest, publishCatalog } from "./catalog/index.js";
import { type Config, ConfigError } from "./config/index.js";
import { openMigratedDatabase } from "./database.js";
import { catalogDeps, periodicTasks, wireModules, workerHandlers } from "./deps.js";
import { buildApp } from "./http/index.js";
import { createMetrics, type Metrics } from "./metrics/index.js";
import { type Db, maintenanceWarnings } from "./platform/db/index.js";
import type { Logger } from "./platform/log.js";
import { VERSION } from "./version.js";
import { Worker } from "./worker/index.js";
import {
  countWorkspaces,
  createWorkspace,
  deleteWorkspace,
  findWorkspaceByName,
} from "./workspaces/index.js";

export const DEMO_WORKSPACE = "demo";

/** The example package the demo workspace starts with (docs/api.md, "Conventions"). */
export const EXAMPLE_CATALOG_DIR = fileURLToPath(new URL("../examples/catalog/", import.meta.url));

/** Said once when a long-running process (serve, worker) starts on a server that will not vacuum. */
export async function warnIfUnmaintained(db: Db, log: Logger): Promise<void> {
  for (const warning of await maintenanceWarnings(db)) log.warn(warning);
}

export type DemoMode = "auto" | "on" | "off";

/**
 * The demo workspace (README.md, docs/api.md): created when the store holds no workspace at all
 * and no DATABASE_URL is set, or when --demo asks for it. Its key is printed once.
 */
export async function bootstrapDemo(db: Db, config: Config, mode: DemoMode): Promise<string | undefined> {
  if (mode === "off") return undefined;
  if (mode === "auto" && (config.databaseUrl || (await countWorkspaces(db)) > 0)) return undefined;
  if (await findWorkspaceByName(db, DEMO_WORKSPACE)) return undefined;
  const example = await exampleCatalogRequest(EXAMPLE_CATALOG_DIR);
  const created = await createWorkspace(db, DEMO_WORKSPACE);
  try {
    await publishCatalog(catalogDeps(db, config), { id: created.id, name: created.workspace }, example);
  } catch (error) {
    // Never leave a demo workspace whose key nobody saw: the next start would not retry.
    await deleteWorkspace(db, created.id);
    throw error;
  }
  return created.api_key;
}

/** Why a listener could not take its address, in words an operator acts on. */
const LISTEN_FAILURES: Record<string, string> = {
  EADDRINUSE: "is already in use by another process: stop it, or choose another port",
  EACCES: "needs privileges this process lacks: choose a port above 1023",
  EADDRNOTAVAIL: "is not an address of this machine: check HOST",
};

/** Listens on HOST:PORT; an address that cannot be taken is a ConfigError naming it (one line, no stack). */
async function listen(app: FastifyInstance, config: Config): Promise<string> {
  try {
    return await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    const why = LISTEN_FAILURES[(error as NodeJS.ErrnoException).code ?? ""];
    if (!why) throw error;
    await app.close();
    throw new ConfigError("PORT", `${config.host}:${config.port} ${why} (PORT=… or --port …)`);
  }
}

export interface Server {
  app: FastifyInstance;
  db: Db;
  url: string;
  /** Stops accepting, finishes in-flight requests, stops the worker, then closes the database. */
  close(): Promise<void>;
}

export interface ServeOptions {
  config: Config;
  log: Logger;
  demo: DemoMode;
  /** Run the background worker in this process (engram serve without --no-worker). */
  worker: boolean;
}

/**
 * Starts a worker running every job kind on the database but those `except` names, reporting its
 * jobs and model calls to `metrics` (the server's, when it runs beside the HTTP app).
 */
export async function startWorker(
  db: Db,
  config: Config,
  log: Logger,
  options: { except?: string[]; metrics?: Metrics } = {},
): Promise<Worker> {
  wireModules();
  const handlers = await workerHandlers(config, options.metrics?.modelCall);
  for (const kind of options.except ?? []) delete handlers[kind];
  const worker = new Worker({
    db,
    log,
    handlers,
    periodic: periodicTasks(config),
    leaseSeconds: config.workerLeaseSeconds,
    onAttempt: options.metrics?.jobAttempt,
  });
  await worker.start();
  return worker;
}

export async function startServer(options: ServeOptions): Promise<Server> {
  const { config, log } = options;
  wireModules();
  const db = await openMigratedDatabase(config, log);
  try {
    await warnIfUnmaintained(db, log);
    const demoKey = await bootstrapDemo(db, config, options.demo);
    if (demoKey) {
      process.stderr.write(
        `\nCreated the "${DEMO_WORKSPACE}" workspace. Its key is shown only this once:\n\n  ${demoKey}\n\n` +
          "Send it as: Authorization: Bearer <key>\n\n",
      );
    }
    const metrics = config.metricsToken ? createMetrics(db) : undefined;
    const app = await buildApp({ config, db, version: VERSION, metrics });
    const url = await listen(app, config);
    const worker = options.worker ? await startWorker(db, config, log, { metrics }) : undefined;
    let closing: Promise<void> | undefined;
    return {
      app,
      db,
      url,
      close: () => {
        closing ??= (async () => {
          await app.close();
          await worker?.stop();
          await db.close();
        })();
        return closing;
      },
    };
  } catch (error) {
    await db.close();
    throw error;
  }
}
