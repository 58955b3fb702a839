import { pino } from "pino";
import { workerHandlers } from "../../src/deps.js";
import { DERIVE_JOB } from "../../src/derivations/index.js";
import type { Db } from "../../src/platform/db/index.js";
import { Worker } from "../../src/worker/runner.js";
import { testConfig } from "./app.js";
import { waitFor } from "./wait.js";

/**
 * A started in-process worker polling fast; stop() it when done. It runs every job kind but
 * derivation runs unless `derive` is true, so tests about enrichment never see derived records
 * appear (the example package's accumulator trigger queues derivation jobs as records turn ready).
 */
export async function startTestWorker(
  db: Db,
  env: Record<string, string> = {},
  options: { derive?: boolean } = {},
): Promise<Worker> {
  const handlers = await workerHandlers(testConfig(env));
  if (!options.derive) delete handlers[DERIVE_JOB];
  const worker = new Worker({
    db,
    log: pino({ level: process.env.TEST_WORKER_LOG ?? "silent" }),
    handlers,
    pollMs: 20,
  });
  await worker.start();
  return worker;
}

/**
 * Runs a worker (with these environment settings) until every record of the workspace is ready,
 * then stops it. `except` names records expected to stay unready (their enrichment cannot finish).
 */
export async function enrichAll(
  db: Db,
  workspaceId: string,
  options: { except?: string[]; env?: Record<string, string> } = {},
): Promise<void> {
  const except = options.except ?? [];
  const worker = await startTestWorker(db, options.env);
  try {
    await waitFor(async () => {
      const { rows } = await db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM records WHERE workspace_id = $1 AND NOT ready AND NOT (id = ANY($2::uuid[]))",
        [workspaceId, except],
      );
      return rows[0]?.n === 0;
    });
  } finally {
    await worker.stop();
  }
}
