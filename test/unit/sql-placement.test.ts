// SQL text lives only in SQL files (a module's sql.ts or <topic>-sql.ts, and the migrations), and
// each table is written only by its owner (docs/development.md "Tables and their owners", read by
// scripts/sql-placement.ts); each rule is seen to fire on a probe: a file added or changed in
// memory only, never on disk.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  misplacedSql,
  misplacedWrites,
  readOwners,
  sqlLiterals,
  writtenTables,
} from "../../scripts/sql-placement.js";

const root = new URL("../../", import.meta.url);
const owners = readOwners();

/** The rules a probe breaks (what the tree breaks aside). */
function writesBroken(overlay: Record<string, string>): string[] {
  const probed = Object.keys(overlay);
  return misplacedWrites(sqlLiterals(overlay), owners)
    .filter((violation) => probed.some((path) => violation.detail.startsWith(`${path}:`)))
    .map((violation) => violation.rule);
}

describe("the tables and their owners", () => {
  it("gives every table the migrations create one owner, a folder of src/", () => {
    const migrations = new URL("src/platform/db/migrations/", root);
    const created = readdirSync(migrations).flatMap((name) =>
      [
        ...readFileSync(new URL(name, migrations), "utf8").matchAll(/CREATE TABLE (?:IF NOT EXISTS )?(\w+)/g),
      ].map((match) => match[1] as string),
    );
    expect(created.length).toBeGreaterThan(10);
    expect(created.filter((table) => !owners.has(table))).toEqual([]);
    expect([...owners.values()].filter((folder) => !statSync(new URL(folder, root)).isDirectory())).toEqual(
      [],
    );
  });

  it("writes each table only in its owner's SQL files", () => {
    expect(misplacedWrites(sqlLiterals(), owners)).toEqual([]);
  });

  it("sees a write outside the owner, in a file that is not SQL, or to a table without an owner", () => {
    const write = (table: string) =>
      `export const PROBE = "UPDATE ${table} SET n = n + 1 WHERE workspace_id = $1";\n`;
    expect(writesBroken({ "src/search/sql.ts": write("workspace_counters") })).toEqual([
      "workspace_counters is written only by src/records/",
    ]);
    expect(writesBroken({ "src/records/probe.ts": write("records") })).toEqual([
      "records is written only by src/records/",
    ]);
    expect(writesBroken({ "src/records/sql.ts": write("records") })).toEqual([]);
    expect(writesBroken({ "src/records/sql.ts": write("brand_new") })).toEqual([
      "every table written has an owner",
    ]);
    // SQL assembled in a template is read too, its expressions as `?`.
    const assembled = "export const probe = (t: string) => `DELETE FROM jobs WHERE id = $" + "{t}`;\n";
    expect(writesBroken({ "src/erasure/sql.ts": assembled })).toEqual([
      "jobs is written only by src/worker/",
    ]);
  });

  it("reads the tables a statement writes, upserts included, not ON CONFLICT's or FOR UPDATE's", () => {
    expect(
      writtenTables(
        "INSERT INTO text_stats (a) VALUES (1) ON CONFLICT (a) DO UPDATE SET a = 2; SELECT 1 FROM heads FOR UPDATE",
      ),
    ).toEqual(["text_stats"]);
    expect(writtenTables("WITH d AS (DELETE FROM heads RETURNING 1) UPDATE runs SET x = 1")).toEqual([
      "heads",
      "runs",
    ]);
    expect(writtenTables("INSERT INTO ? (workspace_id) SELECT $1")).toEqual(["?"]);
  });
});

describe("SQL text", () => {
  /** The files a probe's SQL is refused in (what the tree breaks aside). */
  const refusedIn = (overlay: Record<string, string>) => {
    const probed = Object.keys(overlay);
    return misplacedSql(sqlLiterals(overlay))
      .map((violation) => violation.detail.split(":")[0])
      .filter((file) => file !== undefined && probed.includes(file));
  };

  it("lives only in sql.ts files and the migrations", () => {
    expect(misplacedSql(sqlLiterals())).toEqual([]);
  });

  it("is seen in a statement, a clause assembled in a template, or DDL, but not in an error's message", () => {
    const probes = {
      "src/search/probe-a.ts": 'export const A = "SELECT 1 FROM records WHERE workspace_id = $1";\n',
      "src/search/probe-b.ts":
        "export const b = (w: string) => `r.ready ORDER BY r.seq DESC LIMIT $" + "{w}`;\n",
      "src/records/probe-c.ts": 'export const C = "CREATE INDEX x ON records (seq)";\n',
      "src/records/probe-d.ts":
        'throw new DatabaseSetupError("run CREATE EXTENSION vector; as a superuser");\n',
      "src/search/probe-sql.ts": 'export const E = "SELECT 1";\n',
    };
    expect(refusedIn(probes).sort()).toEqual([
      "src/records/probe-c.ts",
      "src/search/probe-a.ts",
      "src/search/probe-b.ts",
    ]);
  });
});
