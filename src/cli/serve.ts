import { Command } from "commander";
import type { DemoMode } from "../main.js";
import { commandContext, parsePort, shutdownSignal } from "./run.js";

export function serveCommand(): Command {
  return new Command("serve")
    .description("serve the HTTP API (and, unless --no-worker, the background worker)")
    .option("--port <n>", "port to listen on (default: PORT or 8080)", parsePort)
    .option("--host <h>", "address to bind (default: HOST or 127.0.0.1)")
    .option("--no-worker", "do not run the background worker in this process")
    .option("--demo", "create the demo workspace if it does not exist")
    .option("--no-demo", "never create the demo workspace")
    .action(async (options: { port?: number; host?: string; worker: boolean; demo?: boolean }) => {
      const { config, log } = commandContext();
      if (options.port !== undefined) config.port = options.port;
      if (options.host !== undefined) config.host = options.host;
      const demo: DemoMode = options.demo === undefined ? "auto" : options.demo ? "on" : "off";
      // Loaded here: the HTTP app and the worker are most of the application, which other commands skip.
      const { startServer } = await import("../main.js");
      const server = await startServer({ config, log, demo, worker: options.worker });
      log.info(
        { url: server.url, storage: server.db.kind, worker: options.worker },
        `engram listening on ${server.url}`,
      );
      await shutdownSignal(log);
      await server.close();
    });
}
