// `engram catalog init DIR [--name NAME]`: writes the starter catalog of ./catalog-template/
// (plain, commented YAML files: the template is those files, not code) into a new or empty
// directory, with the package renamed. The result is loaded with the catalog loader before
// anything is written, so a template that would not publish never reaches a user.
import { mkdir, readdir, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse, stringify } from "yaml";
import { loadCatalog, PACKAGE_NAME, readCatalogDirectory } from "../catalog/index.js";
import { CliError } from "./run.js";

export const TEMPLATE_DIR = fileURLToPath(new URL("./catalog-template/", import.meta.url));
/** The package name of the template's manifest (packages/starter.yaml), and the default --name. */
export const DEFAULT_PACKAGE_NAME = "starter";
const TEMPLATE_MANIFEST = `packages/${DEFAULT_PACKAGE_NAME}.yaml`;
const MANIFEST_NAME_LINE = new RegExp(`^name: ${DEFAULT_PACKAGE_NAME}(?= |$)`, "m");

export interface InitResult {
  /** Relative paths written, in the order written. */
  files: string[];
  /** "name@version", as `engram catalog publish --package` takes it. */
  package: string;
}

/** The template's files, with the manifest renamed to `name` (path and name: line; comments kept). */
export async function starterCatalog(
  name: string,
): Promise<{ files: Record<string, string>; package: string }> {
  if (!PACKAGE_NAME.test(name)) {
    throw new CliError(
      `--name ${JSON.stringify(name)} is not a package name: use 1 to 64 characters of a-z, 0-9, '.', '_' and '-', starting with a letter or digit`,
    );
  }
  const template = await readCatalogDirectory(TEMPLATE_DIR);
  const manifest = template[TEMPLATE_MANIFEST];
  if (manifest === undefined || !MANIFEST_NAME_LINE.test(manifest)) {
    throw new Error(`the catalog template has no ${TEMPLATE_MANIFEST} starting a line with "name: starter"`);
  }
  const files: Record<string, string> = {};
  for (const [path, text] of Object.entries(template)) {
    if (path === TEMPLATE_MANIFEST) continue;
    files[path] = text;
  }
  // stringify quotes a name YAML would otherwise read as a number or boolean ("123", "true").
  files[`packages/${name}.yaml`] = manifest.replace(MANIFEST_NAME_LINE, `name: ${stringify(name).trimEnd()}`);
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

/** Writes the starter catalog into DIR (created if missing); nothing is written on a refusal. */
export async function initCatalog(dir: string, name: string = DEFAULT_PACKAGE_NAME): Promise<InitResult> {
  const starter = await starterCatalog(name);
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
