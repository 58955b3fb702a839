import { Command } from "commander";
import { openMigratedDatabase } from "../database.js";
import { commandContext, shutdownSignal } from "./run.js";

export function workerCommand(): Command {
  return new Command("worker")
    .description("run the background worker alone (run several against one PostgreSQL server to scale out)")
    .action(async () => {
      const { config, log } = commandContext();
      // Loaded here: the worker's modules are most of the application, which other commands skip.
      const { startWorker, warnIfUnmaintained } = await import("../main.js");
      const db = await openMigratedDatabase(config, log);
      try {
        await warnIfUnmaintained(db, log);
        const worker = await startWorker(db, config, log);
        log.info({ owner: worker.owner, storage: db.kind }, "engram worker started");
        await shutdownSignal(log);
        await worker.stop();
      } finally {
        await db.close();
      }
    });
}
