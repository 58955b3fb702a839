// Db.queryRepeated (src/platform/db/pglite-statements.ts): on PGlite a statement kept prepared,
// run with a generic plan and its parameters as literals, must answer exactly as query() does,
// fail as it does, and leave the session's other statements as they were; a server keeps it as a
// named statement of each connection (src/platform/db/postgres.ts), a bounded number of them.
import type { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parameterLiteral } from "../../src/platform/db/pglite-statements.js";
import { openPostgres } from "../../src/platform/db/postgres.js";
import { type Db, PREPARED_CAPACITY } from "../../src/platform/db/types.js";
import { candidateRows } from "../../src/search/sql.js";
import { createTestDb, onServer, type TestDb } from "../support/db.js";

// Every kind of value the search statements send, and the characters a literal must escape.
const VALUES_SQL = `SELECT $1::text AS quoted, $2::text AS unicode, $3::text AS empty, $4::text AS nothing,
  $5::int AS whole, $6::float8 AS fraction, $7::bool AS flag, $8::timestamptz AS at,
  $9::text[] AS words, $10::int[] AS versions, $11::bool[] AS flags, $12::uuid AS id,
  $13::jsonb AS doc, $14::numeric AS big, array_length($9::text[], 1) AS word_count`;
const VALUES = [
  `it's a "quoted" \\ back\\slash; DROP TABLE records; --`,
  "café 🚀 \ud800 end",
  "",
  null,
  -42,
  0.1,
  false,
  new Date("2026-11-27T08:00:00.123Z"),
  ['a"b', null, "c\\d", "{x,y}", "", "NULL", "it's"],
  [1, 2, 3],
  [true, false],
  "00000000-0000-0000-0000-0000000000ab",
  JSON.stringify({ a: [1, "two", null], b: { "c'd": true } }),
  "12345678901234567890.5",
];

const pgliteOf = (t: TestDb) => (t.db as unknown as { pglite: PGlite }).pglite;

async function prepared(t: TestDb, like: string) {
  const { rows } = await pgliteOf(t).query<{ name: string; generic_plans: number; custom_plans: number }>(
    `SELECT name, generic_plans::int, custom_plans::int FROM pg_prepared_statements
     WHERE name LIKE 'engram_stmt_%' AND statement LIKE $1`,
    [`%${like}%`],
  );
  return rows;
}

describe("repeated statements", () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await createTestDb();
  });
  afterAll(() => t.close());

  it("answer as query() does, the first time and when kept prepared", async () => {
    const expected = (await t.db.query(VALUES_SQL, VALUES)).rows;
    expect(expected[0]).toMatchObject({ quoted: VALUES[0], nothing: null, word_count: 7 });
    for (let i = 0; i < 3; i++) expect((await t.db.queryRepeated(VALUES_SQL, VALUES)).rows).toEqual(expected);
    const rows = `SELECT x AS id, x AS seq FROM generate_series(1, $1::int) x WHERE x <> ALL($2::int[]) ORDER BY x DESC`;
    const params = [5, [2, 4]];
    expect(await candidateRows(t.db, { sql: rows, values: params, repeated: true })).toEqual(
      await candidateRows(t.db, { sql: rows, values: params }),
    );
  });

  it("fail as query() does, and a text that does not prepare is not kept", async () => {
    const code = (p: Promise<unknown>) =>
      p.then(
        () => "resolved",
        (error) => (error as { code?: string }).code,
      );
    expect(await code(t.db.queryRepeated("SELECT $1::int AS n", ["x"]))).toBe("22P02");
    expect(await code(t.db.query("SELECT $1::int AS n", ["x"]))).toBe("22P02");
    expect((await t.db.queryRepeated("SELECT $1::int AS n", ["7"])).rows).toEqual([{ n: 7 }]);
    for (let i = 0; i < 2; i++) {
      expect(await code(t.db.queryRepeated("SELEC $1::int AS n", [1]))).toBe("42601");
    }
    // A NUL has no literal: it goes the unprepared way and fails as query() does.
    const nul = await code(t.db.query("SELECT $1::text AS s", ["a\u0000b"]));
    expect(await code(t.db.queryRepeated("SELECT $1::text AS s", ["a\u0000b"]))).toBe(nul);
  });

  it("run a value with no literal (an object) unprepared", async () => {
    const sql = "SELECT $1::jsonb AS doc";
    expect((await t.db.queryRepeated(sql, [{ a: 1 }])).rows).toEqual(
      (await t.db.query(sql, [{ a: 1 }])).rows,
    );
  });

  it("have literals that quote every character", () => {
    expect(parameterLiteral(null)).toBe("NULL");
    expect(parameterLiteral("it's")).toBe("'it''s'");
    expect(parameterLiteral(['a"b', null, "c\\d", "it's"])).toBe(`'{"a\\"b",NULL,"c\\\\d","it''s"}'`);
    expect(parameterLiteral([[1, 2], [3]])).toBe(`'{{"1","2"},{"3"}}'`);
    expect(parameterLiteral({ a: 1 })).toBeUndefined();
    expect(parameterLiteral(["ok", { a: 1 }])).toBeUndefined();
    expect(parameterLiteral("a\u0000b")).toBeUndefined();
  });

  it.skipIf(onServer)(
    "keep each text prepared once, with a generic plan, and the session's plans as they were",
    async () => {
      const sql = "SELECT count(*)::int AS n FROM generate_series(1, $1::int) /* kept once */";
      const answers = await Promise.all([1, 2, 3, 4, 5].map((n) => t.db.queryRepeated(sql, [n])));
      expect(answers.map((a) => a.rows[0])).toEqual([1, 2, 3, 4, 5].map((n) => ({ n })));
      const [kept, ...more] = await prepared(t, "kept once");
      expect(more).toEqual([]);
      expect(kept).toMatchObject({ generic_plans: 5, custom_plans: 0 });
      // The generic plan is forced for the EXECUTE alone.
      expect((await t.db.query("SHOW plan_cache_mode")).rows).toEqual([{ plan_cache_mode: "auto" }]);
    },
  );

  it.skipIf(onServer)(
    "keep no more than PREPARED_CAPACITY statements, the least recently used leaving",
    async () => {
      const text = (i: number) => `SELECT $1::int + ${i} AS n /* capacity ${i} */`;
      await t.db.queryRepeated(text(0), [1]);
      for (let i = 1; i <= PREPARED_CAPACITY + 5; i++) {
        expect((await t.db.queryRepeated(text(i), [1])).rows).toEqual([{ n: 1 + i }]);
        // The first text, used again each time, stays prepared.
        expect((await t.db.queryRepeated(text(0), [i])).rows).toEqual([{ n: i }]);
      }
      const all = await prepared(t, "capacity");
      expect(all.length).toBe(PREPARED_CAPACITY);
      expect(await prepared(t, "capacity 0 ")).toHaveLength(1);
      expect(await prepared(t, "capacity 1 ")).toHaveLength(0);
    },
  );
});

describe.runIf(onServer)("repeated statements on a server", () => {
  let t: TestDb;
  // One connection, so that pg_prepared_statements (per session) shows what queryRepeated kept.
  let one: Db;
  beforeAll(async () => {
    t = await createTestDb();
    one = await openPostgres({ connectionString: t.url as string, poolSize: 1 });
  });
  afterAll(async () => {
    await one.close();
    await t.close();
  });

  const named = async (like: string) =>
    (
      await one.query<{ name: string; runs: number }>(
        `SELECT name, (generic_plans + custom_plans)::int AS runs FROM pg_prepared_statements
         WHERE statement LIKE $1 AND statement NOT LIKE '%pg_prepared_statements%'`,
        [`%${like}%`],
      )
    ).rows;

  it("keep each text as one named statement of the connection, parsed once", async () => {
    const sql = "SELECT $1::int * 2 AS n /* named once */";
    for (const n of [1, 2, 3]) expect((await one.queryRepeated(sql, [n])).rows).toEqual([{ n: 2 * n }]);
    const [kept, ...more] = await named("named once");
    expect(more).toEqual([]);
    expect(kept?.name).toMatch(/^engram_[0-9a-f]{24}$/);
    expect(kept?.runs).toBe(3);
    // query() leaves nothing prepared.
    await one.query("SELECT $1::int AS n /* unnamed */", [1]);
    expect(await named("unnamed")).toEqual([]);
  });

  it("name no more than PREPARED_CAPACITY texts and run the others unnamed", async () => {
    const text = (i: number) => `SELECT $1::int + ${i} AS n /* server capacity ${i} */`;
    for (let i = 0; i < PREPARED_CAPACITY + 5; i++) {
      expect((await one.queryRepeated(text(i), [1])).rows).toEqual([{ n: 1 + i }]);
    }
    const kept = await one.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name LIKE 'engram\\_%'",
    );
    expect(kept.rows[0]?.n).toBe(PREPARED_CAPACITY);
    expect(await named(`server capacity ${PREPARED_CAPACITY + 4} `)).toEqual([]);
    expect((await one.queryRepeated(text(PREPARED_CAPACITY + 4), [2])).rows).toEqual([
      { n: 2 + PREPARED_CAPACITY + 4 },
    ]);
  });
});
