// The one registry of error codes (src/platform/errors.ts) holds only codes a client can meet:
// each is raised somewhere in src/ and listed in docs/api.md's table, and that table lists
// nothing the registry does not hold with the same status.
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ERROR_STATUS } from "../../src/platform/errors.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

async function sources(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((path) => !path.endsWith(join("platform", "errors.ts")));
}

describe("error codes", () => {
  it("are each raised somewhere in src/", async () => {
    const text = (
      await Promise.all((await sources(join(ROOT, "src"))).map((path) => readFile(path, "utf8")))
    ).join("\n");
    const unused = Object.keys(ERROR_STATUS).filter((code) => !text.includes(`"${code}"`));
    expect(unused).toEqual([]);
  });

  it("match docs/api.md's table, code and status", async () => {
    const doc = await readFile(join(ROOT, "docs/api.md"), "utf8");
    const table = doc.slice(doc.indexOf("### Error codes"), doc.indexOf("### Limits"));
    const documented = Object.fromEntries(
      [...table.matchAll(/^\| (\d{3}) \| `([a-z_]+)` \|/gm)].map((row) => [row[2], Number(row[1])]),
    );
    expect(documented).toEqual(ERROR_STATUS);
  });
});
