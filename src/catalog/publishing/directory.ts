// Catalog directories on disk, for the CLI, the example catalog and tests: the files map of
// POST /catalog read from a folder (docs/catalog.md, "Layout and common rules"). The TypeScript client
// has its own reader (`@engram/client/node`), as a separately published package cannot import the
// server; test/unit/catalog-directory.test.ts keeps the two reading the same map.
import { readdir, readFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import semver from "semver";
import { parse } from "yaml";

/**
 * Every file under a catalog directory, keyed by relative path with forward slashes. Hidden
 * files and folders (.git, editor swap files) are skipped; every other file is read, so the
 * loader refuses anything outside the layout.
 */
export async function readCatalogDirectory(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = relative(dir, join(entry.parentPath, entry.name)).split(sep).join("/");
    if (path.split("/").some((part) => part.startsWith("."))) continue;
    files[path] = await readFile(join(dir, path), "utf8");
  }
  return files;
}

/**
 * A publish request for a catalog directory holding one package: the manifest's own
 * name@version is selected (the newest, when several versions sit side by side).
 */
export async function exampleCatalogRequest(
  dir: string,
): Promise<{ package: string; files: Record<string, string> }> {
  const files = await readCatalogDirectory(dir);
  const refs = Object.entries(files)
    .filter(([path]) => path.startsWith("packages/"))
    .map(([, text]) => parse(text) as { name: string; version: string })
    .sort((a, b) => semver.rcompare(a.version, b.version))
    .map((manifest) => `${manifest.name}@${manifest.version}`);
  const selected = refs[0];
  if (!selected) throw new Error(`no package manifest under ${dir}packages/`);
  return { package: selected, files };
}
