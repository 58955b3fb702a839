import { pino } from "pino";
import { workerHandlers } from "../../src/deps.js";
import type { Db } from "../../src/platform/db/index.js";
import { Worker } from "../../src/worker/runner.js";
import { testConfig } from "./app.js";
import { waitFor } from "./wait.js";

/** A started in-process worker running every job kind, polling fast; stop() it when done. */
export async function startTestWorker(db: Db, env: Record<string, string> = {}): Promise<Worker> {
  const worker = new Worker({
    db,
    log: pino({ level: "silent" }),
    handlers: await workerHandlers(testConfig(env)),
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
