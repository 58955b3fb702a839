import { Command } from "commander";
import { readCatalogDirectory } from "../catalog/directory.js";
import { CliError } from "./run.js";

const DEFAULT_API_URL = "http://127.0.0.1:8080";

/** The API a client command talks to: ENGRAM_API_URL and ENGRAM_API_KEY. */
export function apiTarget(env: NodeJS.ProcessEnv = process.env): { url: string; key: string } {
  const key = env.ENGRAM_API_KEY?.trim();
  if (!key) throw new CliError("set ENGRAM_API_KEY to the workspace key");
  const url = (env.ENGRAM_API_URL?.trim() || DEFAULT_API_URL).replace(/\/+$/, "");
  return { url, key };
}

export function catalogCommand(): Command {
  const command = new Command("catalog").description("work with catalog packages");
  command
    .command("publish")
    .description("upload every file under DIR and select a package (POST /catalog)")
    .argument("<dir>", "catalog directory")
    .requiredOption("--package <name@semver>", "the package manifest to select")
    .option("--dry-run", "only report compatibility; install nothing")
    .action(async (dir: string, options: { package: string; dryRun?: boolean }) => {
      const { url, key } = apiTarget();
      const files = await readCatalogDirectory(dir);
      const response = await fetch(`${url}/catalog${options.dryRun ? "?dry_run=true" : ""}`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ package: options.package, files }),
      }).catch((error: Error) => {
        throw new CliError(`cannot reach ${url}: ${error.message}`);
      });
      const text = await response.text();
      if (!response.ok) {
        process.stderr.write(`${text}\n`);
        throw new CliError(`publish refused (HTTP ${response.status})`);
      }
      process.stdout.write(`${text}\n`);
    });
  return command;
}
