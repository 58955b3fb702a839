// Each table is written only by its owner (docs/development.md "Tables and their owners", read by
// scripts/sql-placement.ts), and each rule is seen to fire on a probe: a file added or changed in
// memory only, never on disk.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { misplacedWrites, readOwners, sqlLiterals, writtenTables } from "../../scripts/sql-placement.js";

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
