// Key names are labels printed as written by `engram key list` (src/workspaces/workspace-keys.ts):
// a bidi control, another invisible format character or a control character is refused with a
// message naming it, and no key is made.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppError } from "../../src/platform/errors.js";
import { createWorkspace, insertKey, listKeys } from "../../src/workspaces/index.js";
import { type CliStorage, cliStorage, runCli } from "../support/cli.js";
import { createTestDb, type TestDb } from "../support/db.js";

const BIDI = [0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x200e, 0x200f, 0x061c];
const OTHERS = [0x0000, 0x0009, 0x001b, 0x007f, 0x0085, 0x200b, 0xfeff, 0x2028, 0x2029];
const hex = (code: number) => `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;

describe("key names", () => {
  let testDb: TestDb;
  let workspace: { id: string; name: string };
  const count = async () => (await listKeys(testDb.db, workspace.id)).length;

  beforeAll(async () => {
    testDb = await createTestDb();
    const created = await createWorkspace(testDb.db, "named");
    workspace = { id: created.id, name: "named" };
  });
  afterAll(() => testDb.close());

  it.each([...BIDI, ...OTHERS].map((code) => [hex(code), code]))(
    "refuses %s inside a name, naming it, and makes no key",
    async (name, code) => {
      const before = await count();
      const refused = await insertKey(testDb.db, workspace, {
        name: `invoice${String.fromCodePoint(code)}fdp.exe`,
      }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(AppError);
      expect(refused).toMatchObject({ code: "request_schema" });
      expect((refused as AppError).detail).toContain(name);
      expect(await count()).toBe(before);
    },
  );

  it("refuses a lone surrogate", async () => {
    await expect(insertKey(testDb.db, workspace, { name: "a\ud800b" })).rejects.toMatchObject({
      code: "request_schema",
    });
  });

  it("keeps ordinary names, accents, scripts and emoji included", async () => {
    for (const name of ["support-bot", "Équipe données", "מפתח", "日本語のキー", "🔑 ci"]) {
      expect((await insertKey(testDb.db, workspace, { name })).name).toBe(name);
    }
  });

  describe("engram key create", { timeout: 60_000 }, () => {
    let storage: CliStorage;
    beforeAll(async () => {
      storage = await cliStorage();
      expect((await runCli(["workspace", "create", "named"], storage.env)).code).toBe(0);
    }, 60_000);
    afterAll(() => storage.cleanup());

    it("exits 1 on a bidi override with the rule and the character", async () => {
      const result = await runCli(
        ["key", "create", "--workspace", "named", "--name", "admin\u202Etxt.exe"],
        storage.env,
      );
      expect(result.code).toBe(1);
      expect(result.stderr).toContain("U+202E is a control or invisible formatting character");
      expect(result.stdout).toBe("");
    });
  });
});
