import { once } from "node:events";
import { open, rename, rm } from "node:fs/promises";
import { Command } from "commander";
import { type Counts, exportWorkspace, FORMAT } from "../portability/index.js";
import { requireWorkspaceByName } from "../workspaces/index.js";
import { CliError } from "./run.js";
import { withDatabase } from "./workspace.js";

/**
 * Stdout as the export's sink: a write waits while its buffer is full (a slow pipe), and a reader
 * that goes away (`| head`) fails the export with one clear line.
 */
function stdoutSink(): (chunk: string) => Promise<void> {
  let failed: Error | undefined;
  process.stdout.on("error", (error) => {
    failed = error;
  });
  const closed = (error: Error) =>
    new CliError(`stdout was closed before the export was complete (${error.message})`);
  return async (chunk) => {
    if (failed) throw closed(failed);
    try {
      if (!process.stdout.write(chunk)) await once(process.stdout, "drain");
    } catch (error) {
      throw closed(error as Error);
    }
  };
}

/** The lines of each kind, as a person reads them ("record: 12, head: 3"). */
export function describeCounts(counts: Counts): string {
  return Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([kind, n]) => `${kind}: ${n}`)
    .join(", ");
}

/**
 * `engram export`: the workspace as JSON Lines (docs/export.md) on stdout, or into --out FILE,
 * which appears only once complete (written as FILE.partial, then renamed).
 */
export function exportCommand(): Command {
  return new Command("export")
    .description(`write a workspace as JSON Lines (${FORMAT}) on stdout or into a file`)
    .requiredOption("--workspace <name>", "the workspace to export")
    .option(
      "--entity <entity>",
      "only this entity's records and what is theirs alone (a portability request)",
    )
    .option("--with-embeddings", "include the vectors (without them an import enriches the records again)")
    .option("--out <file>", "write into this file instead of stdout")
    .action(
      async (options: { workspace: string; entity?: string; withEmbeddings?: boolean; out?: string }) => {
        const partial = options.out === undefined ? undefined : `${options.out}.partial`;
        const file =
          partial === undefined
            ? undefined
            : await open(partial, "w").catch((error: Error) => {
                throw new CliError(`cannot write ${partial}: ${error.message}`);
              });
        try {
          const counts = await withDatabase(async (db) => {
            const workspace = await requireWorkspaceByName(db, options.workspace);
            return exportWorkspace(db, {
              workspace,
              entity: options.entity,
              withEmbeddings: options.withEmbeddings,
              write: file ? async (chunk) => void (await file.write(chunk)) : stdoutSink(),
            });
          });
          if (file) {
            await file.close();
            await rename(partial as string, options.out as string);
          }
          process.stderr.write(`engram: exported ${describeCounts(counts) || "an empty workspace"}\n`);
        } catch (error) {
          if (file) {
            await file.close().catch(() => undefined);
            await rm(partial as string, { force: true });
          }
          throw error;
        }
      },
    );
}
