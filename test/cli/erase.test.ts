// `engram erase`: the operator's erasure through the same path as POST /erase, printing the
// result and the content-free audit.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/http/index.js";
import type { Db } from "../../src/platform/db/index.js";
import { createWorkspace } from "../../src/workspaces/index.js";
import { testConfig } from "../support/app.js";
import { MINIMAL_PACKAGE, minimalFiles } from "../support/catalog-files.js";
import { cliStorage, runCli } from "../support/cli.js";

describe("engram erase", () => {
  let env: NodeJS.ProcessEnv;
  // The server keeps one database; the embedded one is opened around each step (one holder).
  let open: () => Promise<Db>;
  let release: (db: Db) => Promise<void>;
  let cleanup: () => Promise<void>;
  const ids: string[] = [];

  beforeAll(async () => {
    ({ env, open, release, cleanup } = await cliStorage());
    const db = await open();
    const app = await buildApp({ config: testConfig(), db, version: "test" });
    const { api_key } = await createWorkspace(db, "ops");
    const headers = { authorization: `Bearer ${api_key}` };
    await app.inject({
      method: "POST",
      url: "/catalog",
      headers,
      payload: { package: MINIMAL_PACKAGE, files: minimalFiles() },
    });
    const write = async (row: object) => {
      const res = await app.inject({ method: "POST", url: "/records", headers, payload: { records: [row] } });
      ids.push(res.json().inserted[0].id);
    };
    await write({ collection: "notes", entity: "mallory", type: "note", text: "Mallory's pelican secret" });
    await write({
      collection: "facts",
      entity: "trent",
      type: "fact",
      key: "k",
      text: "Derived",
      derived_from: [ids[0]],
    });
    await app.close();
    await release(db);
  });
  afterAll(() => cleanup());

  /** How many of the seeded records the store still holds (the CLI has released it). */
  const remaining = async () => {
    const db = await open();
    try {
      const { rows } = await db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM records WHERE id = ANY($1::uuid[])",
        [ids],
      );
      return rows[0]?.n;
    } finally {
      await release(db);
    }
  };

  it("previews an erasure with --dry-run: counts printed, nothing erased", async () => {
    const result = await runCli(["erase", "--workspace", "ops", "--entity", "mallory", "--dry-run"], env);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      dry_run: true,
      deleted: 2,
      affected_entities: 2,
      by_collection: { notes: 1, facts: 1 },
      derived: 1,
    });
    expect(await remaining()).toBe(2);
  }, 60_000);

  it("erases an entity with its closure and prints the result and the audit", async () => {
    const result = await runCli(["erase", "--workspace", "ops", "--entity", "mallory"], env);
    expect(result.code, result.stderr).toBe(0);
    const printed = JSON.parse(result.stdout);
    expect(printed).toMatchObject({ deleted: 2, affected_entities: 2, audit_id: expect.any(String) });
    expect(printed.audit).toMatchObject({ id: printed.audit_id, collection: "_system", type: "erasure" });
    expect(printed.audit.content.entity_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(result.stdout).not.toContain("pelican");
    expect(result.stdout).not.toContain("mallory");
    expect(await remaining()).toBe(0);
  }, 60_000);

  it("refuses unclear requests with exit code 1 and one line", async () => {
    for (const args of [
      ["erase", "--workspace", "ops"],
      ["erase", "--workspace", "ops", "--entity", "x", "--records", ids[0] as string],
      ["erase", "--workspace", "ops", "--records", "not-a-uuid"],
      ["erase", "--workspace", "nobody", "--entity", "x"],
    ]) {
      const result = await runCli(args, env);
      expect(result.code, args.join(" ")).toBe(1);
      expect(result.stderr).toMatch(/^engram: /);
    }
  }, 120_000);
});
