import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliStorage, cliStorage, runCli } from "../support/cli.js";

describe("engram workspace and migrate commands", () => {
  let env: NodeJS.ProcessEnv;
  let storage: CliStorage;
  beforeAll(async () => {
    storage = await cliStorage();
    env = storage.env;
  });
  afterAll(() => storage.cleanup());

  let apiKey = "";

  it("create --json prints exactly one JSON object with workspace, id and api_key", async () => {
    const result = await runCli(["workspace", "create", "acme", "--json"], env);
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    const created = JSON.parse(lines[0] as string);
    expect(Object.keys(created).sort()).toEqual(["api_key", "id", "workspace"]);
    expect(created.workspace).toBe("acme");
    expect(created.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.api_key).toMatch(/^egk_[A-Za-z0-9_-]{43}$/);
    apiKey = created.api_key;
    // The first command creates the data directory from scratch: 5 s alone, over 30 s on a loaded VM.
  }, 90_000);

  it("a second create of the same name exits 1 with a clear message", async () => {
    const result = await runCli(["workspace", "create", "acme", "--json"], env);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain('workspace "acme" already exists');
  });

  it("list never prints keys", async () => {
    const plain = await runCli(["workspace", "list"], env);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain("acme");
    const json = await runCli(["workspace", "list", "--json"], env);
    const rows = JSON.parse(json.stdout);
    expect(rows.find((r: { workspace: string }) => r.workspace === "acme")).toMatchObject({
      workspace: "acme",
    });
    for (const output of [plain.stdout + plain.stderr, json.stdout + json.stderr]) {
      expect(output).not.toContain(apiKey);
      expect(output).not.toContain("egk_");
    }
  });

  it("migrate is idempotent", async () => {
    const result = await runCli(["migrate"], env);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("up to date");
  });

  it("a bad configuration value stops the command naming the variable", async () => {
    const result = await runCli(["serve"], { ...env, PORT: "eighty" });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("PORT");
  });
});
