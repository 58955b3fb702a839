import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { createInterface } from "node:readline";
import { Command } from "commander";
import { FORMAT, importWorkspace } from "../portability/index.js";
import { describeCounts } from "./export.js";
import { CliError, commandContext } from "./run.js";
import { withDatabase } from "./workspace.js";

/**
 * `engram import`: a file written by `engram export` (or `-`, stdin) into a new or empty workspace,
 * all or nothing. A workspace it creates gets its first key, printed once like `workspace create`.
 */
export function importCommand(): Command {
  return new Command("import")
    .description(`load an ${FORMAT} file into a new or empty workspace (all or nothing)`)
    .requiredOption(
      "--workspace <name>",
      "the workspace to load into: created when absent, else it must be empty",
    )
    .argument("<file>", "the export file, or - for stdin")
    .option(
      "--json",
      "print one JSON object {workspace, id, api_key (a new workspace's), counts, enrichment_jobs}",
    )
    .action(async (file: string, options: { workspace: string; json?: boolean }) => {
      if (file !== "-") {
        const info = await stat(file).catch((error: Error) => {
          throw new CliError(`cannot read ${file}: ${error.message}`);
        });
        if (info.isDirectory()) throw new CliError(`cannot read ${file}: it is a directory`);
      }
      const { config } = commandContext();
      // Loaded here: the catalog's dependencies reach the model providers, which other commands skip.
      const { catalogDeps } = await import("../deps.js");
      const result = await withDatabase((db) => {
        // Opened once the database is: readline drops the lines it reads before they are asked for.
        const input = file === "-" ? process.stdin : createReadStream(file);
        const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
        return importWorkspace(db, catalogDeps(db, config), { workspace: options.workspace, lines });
      });
      if (options.json) {
        process.stdout.write(`${JSON.stringify(result)}\n`);
        return;
      }
      const into = result.api_key ? "new workspace" : "workspace";
      process.stdout.write(
        `Imported into ${into} ${result.workspace} (${result.id}): ${describeCounts(result.counts) || "nothing"}.\n`,
      );
      if (result.enrichment_jobs > 0) {
        process.stdout.write(
          `${result.enrichment_jobs} enrichment job(s) queued: records become searchable as the worker enriches them.\n`,
        );
      }
      if (result.api_key) {
        process.stdout.write(`Its key is shown only this once; keep it safe:\n\n  ${result.api_key}\n`);
      }
    });
}
