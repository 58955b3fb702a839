import { InvalidArgumentError } from "commander";
import { type Config, ConfigError, loadConfig } from "../config/index.js";
import { DatabaseSetupError, DataDirLockedError } from "../platform/db/index.js";
import { AppError } from "../platform/errors.js";
import { createLogger, type Logger } from "../platform/log.js";

/** Exit code for a command that could not do its work (bad config, name taken, dir in use). */
export const EXIT_FAILURE = 1;

export class CliError extends Error {}

/** A --port value: an integer from 0 (any free port) to 65535. */
export function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535)
    throw new InvalidArgumentError("expected a port number from 0 to 65535");
  return port;
}

/** Known failures print one clear line on stderr and exit 1; nothing else is hidden. */
export async function runCommand(run: () => Promise<unknown>): Promise<void> {
  try {
    await run();
  } catch (error) {
    const known =
      error instanceof ConfigError ||
      error instanceof DataDirLockedError ||
      error instanceof DatabaseSetupError ||
      error instanceof AppError ||
      error instanceof CliError;
    process.stderr.write(
      `engram: ${known ? (error as Error).message : String((error as Error)?.stack ?? error)}\n`,
    );
    process.exitCode = EXIT_FAILURE;
  }
}

export interface CommandContext {
  config: Config;
  log: Logger;
}

export function commandContext(): CommandContext {
  const config = loadConfig();
  return { config, log: createLogger(config.logLevel) };
}

/** Resolves on the first SIGTERM or SIGINT; a second one exits at once. */
export function shutdownSignal(log: Logger): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      log.info({ signal }, "shutting down");
      process.once("SIGINT", () => process.exit(130));
      process.once("SIGTERM", () => process.exit(143));
      resolve(signal);
    };
    process.once("SIGINT", onSignal);
    process.once("SIGTERM", onSignal);
  });
}
