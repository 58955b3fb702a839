// `engram catalog init DIR [--template T] [--name NAME]`: writes a catalog template of
// ./catalog-templates/T/ (plain, commented YAML files: the template is those files, not code)
// into a new or empty directory, with the package renamed. Each template's manifest is
// packages/T.yaml, package T. The result is loaded with the catalog loader before anything is
// written, so a template that would not publish never reaches a user.
import { mkdir, readdir, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse, stringify } from "yaml";
import { loadCatalog, PACKAGE_NAME, readCatalogDirectory } from "../catalog/index.js";
import { CliError } from "./run.js";

/**
 * The templates (docs/catalog.md, "Start from engram catalog init"): `starter`, a minimal memory
 * to grow; `conversation`, a chat agent's messages in and cited memories about the user out.
 */
export const TEMPLATES = ["starter", "conversation"] as const;
export type Template = (typeof TEMPLATES)[number];
export const DEFAULT_TEMPLATE: Template = "starter";

const templateDir = (template: Template) =>
  fileURLToPath(new URL(`./catalog-templates/${template}/`, import.meta.url));

export interface InitResult {
  /** Relative paths written, in the order written. */
  files: string[];
  /** "name@version", as `engram catalog publish --package` takes it. */
  package: string;
}

export interface InitOptions {
  template?: Template;
  /** The package name; default the template's. */
  name?: string;
}

/** The template's files, with the manifest renamed to `name` (path and name: line; comments kept). */
export async function templateCatalog(
  options: InitOptions = {},
): Promise<{ files: Record<string, string>; package: string }> {
  const template = options.template ?? DEFAULT_TEMPLATE;
  if (!TEMPLATES.includes(template)) {
    throw new CliError(
      `--template ${JSON.stringify(template)} is not a template: use one of ${TEMPLATES.join(", ")}`,
    );
  }
  const name = options.name ?? template;
  if (!PACKAGE_NAME.test(name)) {
    throw new CliError(
      `--name ${JSON.stringify(name)} is not a package name: use 1 to 64 characters of a-z, 0-9, '.', '_' and '-', starting with a letter or digit`,
    );
  }
  const manifestPath = `packages/${template}.yaml`;
  const nameLine = new RegExp(`^name: ${template}(?= |$)`, "m");
  const written = await readCatalogDirectory(templateDir(template));
  const manifest = written[manifestPath];
  if (manifest === undefined || !nameLine.test(manifest)) {
    throw new Error(
      `the ${template} catalog template has no ${manifestPath} starting a line with "name: ${template}"`,
    );
  }
  const files: Record<string, string> = {};
  for (const [path, text] of Object.entries(written)) {
    if (path === manifestPath) continue;
    files[path] = text;
  }
  // stringify quotes a name YAML would otherwise read as a number or boolean ("123", "true").
  files[`packages/${name}.yaml`] = manifest.replace(nameLine, `name: ${stringify(name).trimEnd()}`);
  const version = String((parse(manifest) as { version: unknown }).version);
  const ref = `${name}@${version}`;
  loadCatalog(files, ref);
  return { files, package: ref };
}

/** Refuses a DIR that exists and is not an empty directory. */
async function checkTarget(dir: string): Promise<void> {
  const info = await stat(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    throw new CliError(`cannot read ${dir}: ${error.message}`);
  });
  if (info === undefined) return;
  if (!info.isDirectory()) throw new CliError(`${dir} exists and is not a directory; nothing written`);
  if ((await readdir(dir)).length > 0) {
    throw new CliError(`${dir} is not empty; catalog init writes only into a new or empty directory`);
  }
}

/** Writes a template's catalog into DIR (created if missing); nothing is written on a refusal. */
export async function initCatalog(dir: string, options: InitOptions = {}): Promise<InitResult> {
  const starter = await templateCatalog(options);
  await checkTarget(dir);
  const paths = Object.keys(starter.files).sort();
  for (const path of paths) {
    const target = join(dir, path);
    await mkdir(dirname(target), { recursive: true });
    // "wx": never replace a file that appeared since the check.
    await writeFile(target, starter.files[path] as string, { flag: "wx" });
  }
  return { files: paths, package: starter.package };
}

/** A word the shell reads back as itself. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** What `engram catalog init` prints: the files written and how to publish them. */
export function initReport(dir: string, result: InitResult): string {
  const d = shellWord(dir);
  return [
    `Wrote the catalog package ${result.package} to ${dir}:`,
    ...result.files.map((path) => `  ${path}`),
    "",
    "Publish it into a workspace (the server running, ENGRAM_API_KEY set to the workspace's key,",
    "ENGRAM_API_URL to the server when it is not http://127.0.0.1:8080):",
    "",
    `  npm exec -- engram catalog publish ${d} --package ${result.package}`,
    "",
  ].join("\n");
}
