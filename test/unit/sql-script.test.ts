import { describe, expect, it } from "vitest";
import { loadMigrations } from "../../src/platform/db/index.js";
import { splitStatements } from "../../src/platform/db/sql-script.js";

describe("splitStatements", () => {
  it("splits at semicolons outside quotes, dollar quotes and comments", () => {
    const script = `-- a comment; not a statement
CREATE TABLE a (x text DEFAULT 'a;b', "odd;name" int); /* c; d */
DO $$ BEGIN EXECUTE 'SELECT 1; SELECT 2'; END $$;
CREATE FUNCTION f() RETURNS int LANGUAGE sql AS $body$ SELECT 1; $body$;
SELECT 'it''s; fine';`;
    expect(splitStatements(script)).toEqual([
      `-- a comment; not a statement
CREATE TABLE a (x text DEFAULT 'a;b', "odd;name" int)`,
      `/* c; d */
DO $$ BEGIN EXECUTE 'SELECT 1; SELECT 2'; END $$`,
      "CREATE FUNCTION f() RETURNS int LANGUAGE sql AS $body$ SELECT 1; $body$",
      "SELECT 'it''s; fine'",
    ]);
  });

  it("drops what holds only comments and whitespace", () => {
    expect(splitStatements("SELECT 1;\n-- the end\n  ")).toEqual(["SELECT 1"]);
    expect(splitStatements("")).toEqual([]);
  });

  it("refuses an unterminated quote rather than guess", () => {
    expect(() => splitStatements("SELECT 'open")).toThrow(/unterminated ' quote/);
    expect(() => splitStatements("DO $x$ BEGIN")).toThrow(/unterminated \$x\$ quote/);
    expect(() => splitStatements("SELECT 1 /* open")).toThrow(/unterminated \/\* comment/);
  });

  it("splits every migration into statements that each hold SQL", async () => {
    for (const migration of await loadMigrations()) {
      const statements = splitStatements(migration.sql);
      expect(statements.length, migration.name).toBeGreaterThan(0);
      for (const statement of statements) expect(statement, migration.name).not.toMatch(/;\s*$/);
    }
  });
});
