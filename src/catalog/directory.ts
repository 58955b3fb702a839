import semver from "semver";
import { parse } from "yaml";
// One reader of catalog directories for the CLI and the TypeScript client's publish helper.
import { readCatalogDirectory } from "../../clients/typescript/src/node.js";

export { readCatalogDirectory };

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
