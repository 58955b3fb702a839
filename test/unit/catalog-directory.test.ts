// The server and the TypeScript client each read catalog directories (src/catalog/publishing/
// directory.ts, clients/typescript/src/node.ts): the client is published apart and cannot import
// the server. Both must send the same files map, so they are read side by side here.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readCatalogDirectory as clientRead } from "../../clients/typescript/src/node.js";
import { readCatalogDirectory as serverRead } from "../../src/catalog/index.js";
import { EXAMPLE_CATALOG_DIR } from "../../src/main.js";

const temp = await mkdtemp(join(tmpdir(), "engram-catalog-dir-"));
afterAll(() => rm(temp, { recursive: true, force: true }));

describe("catalog directory readers", () => {
  it("read the example catalog alike", async () => {
    const files = await serverRead(EXAMPLE_CATALOG_DIR);
    expect(Object.keys(files).length).toBeGreaterThan(0);
    expect(await clientRead(EXAMPLE_CATALOG_DIR)).toEqual(files);
  });

  it("skip hidden files and folders alike", async () => {
    await mkdir(join(temp, "collections"), { recursive: true });
    await mkdir(join(temp, ".git"), { recursive: true });
    await writeFile(join(temp, "collections", "notes.yaml"), "name: notes\n");
    await writeFile(join(temp, "collections", ".notes.yaml.swp"), "swap");
    await writeFile(join(temp, ".git", "HEAD"), "ref: refs/heads/main\n");
    const files = await serverRead(temp);
    expect(files).toEqual({ "collections/notes.yaml": "name: notes\n" });
    expect(await clientRead(temp)).toEqual(files);
  });
});
