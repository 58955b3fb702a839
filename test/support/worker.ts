import { pino } from "pino";
import { workerHandlers } from "../../src/deps.js";
import type { Db } from "../../src/platform/db/index.js";
import { Worker } from "../../src/worker/runner.js";
import { testConfig } from "./app.js";

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
