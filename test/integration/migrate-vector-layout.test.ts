// `engram migrate --vector-layout`: the one step that converts stored embeddings between the
// pgvector and exact layouts (docs/operations.md, Vector layouts). A start in the other layout
// (here `engram migrate` without the flag) exits 1 naming it and leaves the store as it was.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../src/platform/db/index.js";
import { adminQuery } from "../support/admin.js";
import { createTestApp, type TestApp } from "../support/app.js";
import { type CliStorage, cliStorage, runCli } from "../support/cli.js";
import { onServer } from "../support/db.js";
import { testVectorLayout } from "../support/urls.js";
import { enrichAll } from "../support/worker.js";

async function stored(db: Db) {
  const { rows } = await db.query<{ type: string; embeddings: number; hnsw: number }>(
    `SELECT (SELECT format_type(atttypid, atttypmod) FROM pg_attribute
              WHERE attrelid = 'embeddings'::regclass AND attname = 'embedding') AS type,
            (SELECT count(*)::int FROM embeddings) AS embeddings,
            (SELECT count(*)::int FROM pg_indexes WHERE tablename = 'embeddings' AND indexdef ILIKE '%USING hnsw%') AS hnsw`,
  );
  return rows[0];
}

describe("engram migrate --vector-layout", () => {
  let storage: CliStorage;

  beforeAll(async () => {
    storage = await cliStorage();
  });
  afterAll(() => storage.cleanup());

  it("refuses a value it does not know, and exact on embedded storage, with one line", async () => {
    const bogus = await runCli(["migrate", "--vector-layout", "hnsw"], storage.env);
    expect(bogus.code).toBe(1);
    expect(bogus.stderr).toContain("expected auto or exact");
    if (onServer) return;
    const exact = await runCli(["migrate", "--vector-layout", "exact"], storage.env);
    expect(exact.code).toBe(1);
    expect(exact.stderr.trim()).toBe(
      "engram: --vector-layout exact applies to a PostgreSQL server (DATABASE_URL); embedded storage always uses pglite/hnsw",
    );
    const auto = await runCli(["migrate", "--vector-layout", "auto"], storage.env);
    expect(auto.code, auto.stderr).toBe(0);
  });
});

describe.runIf(onServer)("converting a server store between layouts", () => {
  let t: TestApp;
  let offers = false;
  let env: NodeJS.ProcessEnv;
  const run = testVectorLayout();
  const other = run === "exact" ? "auto" : "exact";
  const column = { auto: "vector", exact: "real[]" } as const;

  beforeAll(async () => {
    offers =
      (
        await adminQuery(
          process.env.DATABASE_URL as string,
          "SELECT 1 FROM pg_available_extensions WHERE name = 'vector'",
        )
      ).length > 0;
    t = await createTestApp();
    const ws = await t.workspace("convert");
    await t.publishExample(ws.headers);
    await t.writeRecords(ws.headers, [
      { collection: "customer_events", entity: "c-1", type: "note", text: "alpha bravo" },
      { collection: "customer_events", entity: "c-2", type: "note", text: "charlie delta" },
    ]);
    await enrichAll(t.db, ws.id);
    env = { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: "warn", DATABASE_URL: t.testDb.url };
  });
  afterAll(() => t.close());

  it("only with the flag: a start in the other layout exits 1 and changes nothing", async (ctx) => {
    if (!offers) ctx.skip();
    const before = await stored(t.db);
    expect(before?.type).toBe(column[run]);
    const otherEnv = other === "exact" ? { ...env, VECTOR_LAYOUT: "exact" } : env;

    const refused = await runCli(["migrate"], otherEnv);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`run \`engram migrate --vector-layout ${other}\``);
    expect(refused.stderr.trim().split("\n")).toHaveLength(1);
    expect(await stored(t.db)).toEqual(before);

    const converted = await runCli(["migrate", "--vector-layout", other], env);
    expect(converted.code, converted.stderr).toBe(0);
    // Said at warn level, naming what it converted.
    expect(converted.stderr).toContain(
      `converted the embeddings column to ${column[other]}: 2 stored embeddings`,
    );
    expect(await stored(t.db)).toEqual({
      type: column[other],
      embeddings: 2,
      hnsw: other === "auto" ? 1 : 0,
    });
    // The other layout's processes now start; back again with the flag.
    expect((await runCli(["migrate"], otherEnv)).code).toBe(0);
    const back = await runCli(["migrate", "--vector-layout", run], env);
    expect(back.code, back.stderr).toBe(0);
    expect(await stored(t.db)).toEqual(before);
  });
});
