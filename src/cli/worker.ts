import { Command } from "commander";
import { openMigratedDatabase } from "../database.js";
import type { Db } from "../platform/db/index.js";
import { CliError, commandContext, parsePort, shutdownSignal } from "./run.js";

export function workerCommand(): Command {
  return new Command("worker")
    .description("run the background worker alone (run several against one PostgreSQL server to scale out)")
    .option(
      "--metrics-port <n>",
      "also serve GET /metrics (behind METRICS_TOKEN) and GET /health on this port, at HOST",
      parsePort,
    )
    .action(async (options: { metricsPort?: number }) => {
      const { config, log } = commandContext();
      const { metricsPort } = options;
      const token = config.metricsToken;
      if (metricsPort !== undefined && !token) {
        throw new CliError("--metrics-port serves /metrics behind METRICS_TOKEN: set METRICS_TOKEN");
      }
      // Loaded here: the worker's modules are most of the application, which other commands skip.
      const { startWorker, warnIfUnmaintained } = await import("../main.js");
      const db = await openMigratedDatabase(config, log);
      try {
        await warnIfUnmaintained(db, log);
        const listener =
          metricsPort !== undefined && token
            ? await metricsListener(db, token, config.host, metricsPort)
            : undefined;
        try {
          const worker = await startWorker(db, config, log, { metrics: listener?.metrics });
          log.info({ owner: worker.owner, storage: db.kind }, "engram worker started");
          if (listener) log.info({ url: listener.url }, `engram worker metrics listening on ${listener.url}`);
          await shutdownSignal(log);
          await worker.stop();
        } finally {
          await listener?.close();
        }
      } finally {
        await db.close();
      }
    });
}

/** The worker's own metrics, served on their own port (there is no API in this process). */
async function metricsListener(db: Db, token: string, host: string, port: number) {
  const [{ createMetrics }, { buildMetricsApp }] = await Promise.all([
    import("../metrics/index.js"),
    import("../http/index.js"),
  ]);
  const metrics = createMetrics(db);
  const app = buildMetricsApp({ db, metrics, token });
  const url = await app.listen({ port, host });
  return { metrics, url, close: () => app.close() };
}
