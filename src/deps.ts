// Wiring shared by the composition roots (main.ts, the HTTP app, the test and bench harnesses):
// how domain modules that must not import each other are connected. Importing this file wires
// nothing: each entry point calls wireModules() before its first write.
import { purgeExpiredUses } from "./artifacts/index.js";
import type { CatalogDeps, InstalledCatalog } from "./catalog/index.js";
import { type Config, configuredSecrets } from "./config/index.js";
import { DERIVE_JOB, deriveHandler, fireReadyTriggers, runCronTriggers } from "./derivations/index.js";
import { INDEX_DELETE_JOB, indexDeleteHandler } from "./erasure/index.js";
import {
  type CreateModelsOptions,
  createModels,
  endpointRefusal,
  loadFakeScript,
  type Models,
} from "./models/index.js";
import type { Db } from "./platform/db/index.js";
import {
  BACKFILL_JOB,
  backfillHandler,
  ENRICH_JOB,
  enrichHandler,
  onRecordsReady,
  REINDEX_JOB,
  reindexHandler,
  sealDeferredVectors,
  spaceIndexes,
  storedContracts,
} from "./records/index.js";
import { runRetention } from "./retention/index.js";
import { fieldIndexes, reconcileFieldIndexes } from "./search/index.js";
import type { JobHandler, PeriodicTask } from "./worker/index.js";

/**
 * Connects the modules that cannot import each other: records turning ready fire the derivations'
 * write and accumulator triggers (the records module cannot import the derivations module, which
 * writes records). A write before this call throws (src/records/ready-hooks.ts). Idempotent.
 */
export function wireModules(): void {
  onRecordsReady(fireReadyTriggers);
}

export function catalogDeps(
  db: Db,
  config: Pick<Config, "additiveVerifyMaxRows" | "modelEndpoints" | "maxIndexedFields">,
): CatalogDeps {
  return {
    db,
    stored: storedContracts,
    spaces: spaceIndexes(db),
    fields: fieldIndexes(db, { maxIndexedFields: config.maxIndexedFields }),
    verifyMaxRows: config.additiveVerifyMaxRows,
    providers: (provider) => endpointRefusal(provider, config.modelEndpoints),
  };
}

/**
 * Models per installed catalog, built once per install, under the deployment's MODEL_ENDPOINTS
 * and with its secrets to redact; onCall is told of every request (metrics).
 */
export function modelsResolver(
  config: Pick<Config, "modelEndpoints" | "metricsToken" | "adminToken" | "databaseUrl" | "wordVectorsCache">,
  options: { fakeScript: Record<string, unknown>; onCall?: CreateModelsOptions["onCall"] },
): (catalog: InstalledCatalog) => Models {
  const cache = new WeakMap<InstalledCatalog, Models>();
  const settings = {
    endpoints: config.modelEndpoints,
    secrets: configuredSecrets(config),
    env: process.env,
    ...(config.wordVectorsCache === undefined ? {} : { wordVectorsCache: config.wordVectorsCache }),
  };
  return (catalog) => {
    let models = cache.get(catalog);
    if (!models) {
      models = createModels(catalog.index.models.def, { ...options, ...settings });
      cache.set(catalog, models);
    }
    return models;
  };
}

/** Every job kind the worker runs, with its handler; onModelCall is told of every model call (metrics). */
export async function workerHandlers(
  config: Config,
  onModelCall?: CreateModelsOptions["onCall"],
): Promise<Record<string, JobHandler>> {
  const script = await loadFakeScript(config.fakeModelScript);
  const enrich = {
    models: modelsResolver(config, { fakeScript: script, onCall: onModelCall }),
    llmBatch: config.enrichLlmBatch,
    embedBatch: config.enrichEmbedBatch,
  };
  return {
    [ENRICH_JOB]: enrichHandler(enrich),
    [BACKFILL_JOB]: backfillHandler({ ...enrich, batch: config.backfillBatch }),
    [REINDEX_JOB]: reindexHandler,
    [DERIVE_JOB]: deriveHandler({ models: enrich.models }),
    [INDEX_DELETE_JOB]: indexDeleteHandler,
  };
}

/** How often the worker looks for cron ticks: a minute is cron's finest grain. */
const CRON_CHECK_MS = 15_000;

/** How often expired artifact uses are purged: expiry is counted in days. */
const USE_PURGE_MS = 60_000;

/** How often field indexes are compared with the active catalogs (src/search/field-indexes.ts). */
const FIELD_INDEX_CHECK_MS = 10_000;

/** How often deferred vectors are looked for (a tail is searched exactly until sealed). */
const VECTOR_SEAL_MS = 1_000;

// Rows per merge statement: about 1.5 s of HNSW inserts on a server, so a stopping worker waits
// little; embedded storage's statements hold its one connection, so there about 0.1-0.3 s.
const VECTOR_MERGE_BATCH = { postgres: 500, pglite: 32 } as const;

/** Work the worker does on its clock. */
export function periodicTasks(
  config: Pick<
    Config,
    "artifactUsePurgeBatch" | "eraseMaxRecords" | "vectorBulkMinRows" | "vectorBuildMemory"
  >,
): PeriodicTask[] {
  return [
    {
      name: "vector seal",
      everyMs: VECTOR_SEAL_MS,
      run: async (ctx) =>
        void (await sealDeferredVectors(ctx.db, {
          bulkMinRows: config.vectorBulkMinRows,
          buildMemory: config.vectorBuildMemory,
          mergeBatch: VECTOR_MERGE_BATCH[ctx.db.kind],
          stopping: ctx.stopping,
        })),
    },
    {
      name: "cron triggers",
      everyMs: CRON_CHECK_MS,
      run: async (ctx) => void (await runCronTriggers(ctx.db)),
    },
    {
      name: "artifact use purge",
      everyMs: USE_PURGE_MS,
      run: async (ctx) => void (await purgeExpiredUses(ctx.db, config.artifactUsePurgeBatch)),
    },
    {
      // Retention policies run on their own cron; this is how often their ticks are looked for.
      name: "retention",
      everyMs: CRON_CHECK_MS,
      run: async (ctx) => void (await runRetention(ctx.db, { maxRecords: config.eraseMaxRecords })),
    },
    {
      // Builds what a publish's sync could not (an import, another process syncing, a failed
      // build) and drops what no active catalog needs (a deleted workspace).
      name: "field indexes",
      everyMs: FIELD_INDEX_CHECK_MS,
      run: async (ctx) => void (await reconcileFieldIndexes(ctx.db)),
    },
  ];
}
