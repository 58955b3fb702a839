import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliStorage, cliStorage, runCli } from "../support/cli.js";

// Each step runs the CLI two or three times (seconds each on a loaded 2-core machine).
describe("engram key", { timeout: 90_000 }, () => {
  let env: NodeJS.ProcessEnv;
  let storage: CliStorage;
  const printed: string[] = [];
  beforeAll(async () => {
    storage = await cliStorage();
    env = storage.env;
    const created = await runCli(["workspace", "create", "keyed", "--json"], env);
    printed.push(JSON.parse(created.stdout).api_key);
  }, 90_000);
  afterAll(() => storage.cleanup());

  const list = async () => {
    const result = await runCli(["key", "list", "--workspace", "keyed", "--json"], env);
    expect(result.code).toBe(0);
    return JSON.parse(result.stdout) as Record<string, string | null>[];
  };

  it("workspace create made the first key: default, scope admin, with its prefix", async () => {
    const keys = await list();
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({
      name: "default",
      scope: "admin",
      prefix: printed[0]?.slice(0, 12),
      expires_at: null,
      revoked_at: null,
    });
  });

  it("create --json prints the new key once, with its scope and expiry", async () => {
    const before = Date.now();
    const result = await runCli(
      [
        "key",
        "create",
        "--workspace",
        "keyed",
        "--name",
        "agent",
        "--read-only",
        "--expires-in",
        "12h",
        "--json",
      ],
      env,
    );
    expect(result.code).toBe(0);
    const created = JSON.parse(result.stdout);
    expect(Object.keys(created).sort()).toEqual([
      "api_key",
      "expires_at",
      "id",
      "name",
      "prefix",
      "scope",
      "workspace",
    ]);
    expect(created).toMatchObject({ workspace: "keyed", name: "agent", scope: "read_only" });
    expect(created.api_key).toMatch(/^egk_[A-Za-z0-9_-]{43}$/);
    const expires = Date.parse(created.expires_at);
    expect(expires).toBeGreaterThanOrEqual(before + 12 * 3_600_000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 12 * 3_600_000);
    printed.push(created.api_key);
    const plain = await runCli(["key", "create", "--workspace", "keyed"], env);
    expect(plain.code).toBe(0);
    const key = /egk_[A-Za-z0-9_-]{43}/.exec(plain.stdout)?.[0];
    expect(key).toBeDefined();
    printed.push(key as string);
  });

  it("list shows every key's fields, never a key", async () => {
    const keys = await list();
    expect(keys.map((k) => [k.name, k.scope])).toEqual([
      ["default", "admin"],
      ["agent", "read_only"],
      ["default", "read_write"],
    ]);
    for (const key of keys) {
      expect(Object.keys(key).sort()).toEqual([
        "created_at",
        "expires_at",
        "id",
        "last_used_at",
        "name",
        "prefix",
        "revoked_at",
        "scope",
      ]);
    }
    const plain = await runCli(["key", "list", "--workspace", "keyed"], env);
    expect(plain.stdout).toContain(`agent\tread_only\t${printed[1]?.slice(0, 12)}\tactive`);
    for (const output of [plain.stdout + plain.stderr, JSON.stringify(keys)]) {
      // Each key's prefix (egk_ and 8 characters) is shown, never more of it.
      for (const key of printed) {
        expect(output).toContain(key.slice(0, 12));
        expect(output).not.toContain(key.slice(0, 13));
      }
    }
  });

  it("revoke marks the key revoked; list shows when", async () => {
    const agent = (await list()).find((k) => k.name === "agent") as { id: string };
    const result = await runCli(["key", "revoke", "--workspace", "keyed", agent.id], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Revoked key agent (${agent.id})`);
    const revoked = (await list()).find((k) => k.id === agent.id);
    expect(Date.parse(revoked?.revoked_at as string)).toBeGreaterThan(0);
    const plain = await runCli(["key", "list", "--workspace", "keyed"], env);
    expect(plain.stdout).toMatch(/agent\tread_only\tegk_\S{8}\trevoked/);
  });

  it("revoke takes the key itself (what leaked), and never prints it", async () => {
    const leaked = printed[2] as string;
    const result = await runCli(["key", "revoke", "--workspace", "keyed", leaked], env);
    expect(result.code).toBe(0);
    expect(result.stdout + result.stderr).not.toContain(leaked);
    const revoked = (await list()).find((k) => k.prefix === leaked.slice(0, 12));
    expect(Date.parse(revoked?.revoked_at as string)).toBeGreaterThan(0);
    // The admin key is untouched.
    expect((await list()).find((k) => k.scope === "admin")?.revoked_at).toBeNull();
  });

  it.each([
    [["key", "create", "--workspace", "keyed", "--expires-in", "soon"], /invalid duration "soon"/],
    [["key", "create", "--workspace", "keyed", "--expires-in", "0d"], /invalid duration/],
    [["key", "create", "--workspace", "keyed", "--name", " "], /key name/],
    [["key", "create", "--workspace", "nowhere"], /no workspace named "nowhere"/],
    [["key", "create"], /--workspace/],
    [["key", "revoke", "--workspace", "keyed", "00000000-0000-4000-8000-000000000000"], /has no key/],
    [["key", "revoke", "--workspace", "keyed", "nonsense"], /has no key nonsense/],
    [["key", "list", "--workspace", "nowhere"], /no workspace named/],
  ])("refuses %j with exit 1 and a clear message", async (args, message) => {
    const result = await runCli(args, env);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe("");
  });

  it("the refused commands created nothing", async () => {
    expect((await list()).length).toBe(3);
  });

  it("create --admin makes a key that manages keys; with --read-only it is refused", async () => {
    const refused = await runCli(["key", "create", "--workspace", "keyed", "--admin", "--read-only"], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/'--admin' cannot be used with option '--read-only'/);
    const made = await runCli(
      ["key", "create", "--workspace", "keyed", "--name", "ops", "--admin", "--json"],
      env,
    );
    expect(made.code, made.stderr).toBe(0);
    expect(JSON.parse(made.stdout)).toMatchObject({ name: "ops", scope: "admin" });
    expect((await list()).filter((k) => k.scope === "admin").map((k) => k.name)).toEqual(["default", "ops"]);
  });
});
