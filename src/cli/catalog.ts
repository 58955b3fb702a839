import { Command } from "commander";
import { parse } from "yaml";
import { readCatalogDirectory } from "../catalog/index.js";
import { DEFAULT_TEMPLATE, initCatalog, initReport, TEMPLATES, type Template } from "./catalog-init.js";
import { CliError } from "./run.js";

const DEFAULT_API_URL = "http://127.0.0.1:8080";

/** The API a client command talks to: ENGRAM_API_URL and ENGRAM_API_KEY. */
export function apiTarget(env: NodeJS.ProcessEnv = process.env): { url: string; key: string } {
  const key = env.ENGRAM_API_KEY?.trim();
  if (!key) throw new CliError("set ENGRAM_API_KEY to the workspace key");
  const url = (env.ENGRAM_API_URL?.trim() || DEFAULT_API_URL).replace(/\/+$/, "");
  return { url, key };
}

/**
 * The package a publish selects when --package is left out: the one manifest under packages/,
 * as name@version. None or several is a refusal naming what it found.
 */
export function onlyPackage(files: Record<string, string>): string {
  const manifests = Object.keys(files)
    .filter((path) => path.startsWith("packages/"))
    .sort();
  const named = manifests.map((path) => {
    const manifest = parse(files[path] as string) as { name?: unknown; version?: unknown } | null;
    return { path, ref: `${manifest?.name}@${manifest?.version}` };
  });
  if (named.length === 1) return (named[0] as { ref: string }).ref;
  throw new CliError(
    named.length === 0
      ? "the directory holds no package manifest under packages/"
      : `the directory holds ${named.length} package manifests (${named.map((m) => m.ref).join(", ")}): choose one with --package`,
  );
}

export function catalogCommand(): Command {
  const command = new Command("catalog").description("work with catalog packages");
  command
    .command("init")
    .summary("write a commented catalog that publishes as it is into a new or empty DIR")
    .description(
      "write a commented catalog into DIR that publishes as it is. starter: an event and a keyed " +
        "collection with full-text and embedding search, conf/models.yaml (the offline fake provider, " +
        "an OpenAI-compatible one declared beside it) and a package manifest. conversation: a chat " +
        "agent's messages, memories about the user extracted from them with citations (superseded " +
        "and retracted as messages change them), a recall view, a profile artifact and MCP tools " +
        "remember, recall, forget and profile",
    )
    .argument("<dir>", "the directory to write; created if missing, refused unless empty")
    .option("--template <template>", `the catalog to write: ${TEMPLATES.join(" or ")}`, DEFAULT_TEMPLATE)
    .option("--name <name>", "the package name (default: the template's name)")
    .action(async (dir: string, options: { template: Template; name?: string }) => {
      const result = await initCatalog(dir, options);
      process.stdout.write(initReport(dir, result));
    });
  command
    .command("publish")
    .description("upload every file under DIR and select a package (POST /catalog)")
    .argument("<dir>", "catalog directory")
    .option(
      "--package <name@semver>",
      "the package manifest to select (default: the only one under packages/)",
    )
    .option("--dry-run", "only report compatibility; install nothing")
    .action(async (dir: string, options: { package?: string; dryRun?: boolean }) => {
      const { url, key } = apiTarget();
      const files = await readCatalogDirectory(dir);
      const selected = options.package ?? onlyPackage(files);
      const response = await fetch(`${url}/catalog${options.dryRun ? "?dry_run=true" : ""}`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ package: selected, files }),
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
