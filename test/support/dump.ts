// A dump of every row of every table of the database, each as text, and where given strings occur
// in it: what erasure (test/erasure/no-trace.test.ts) and workspace deletion
// (test/http/operator.test.ts) must leave nowhere.
import { expect } from "vitest";
import type { Db } from "../../src/platform/db/index.js";

export interface DumpRow {
  table: string;
  row: string;
}

/** Every row of every table of the public schema, each cast to text. */
export async function dumpDatabase(db: Db): Promise<DumpRow[]> {
  const { rows: tables } = await db.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_catalog.pg_class c
     JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') ORDER BY 1`,
  );
  const names = tables.map((t) => t.name);
  // The dump reads what erasure must clean: a failed catalog query would pass vacuously.
  for (const table of [
    "records",
    "heads",
    "cursors",
    "jobs",
    "embeddings",
    "runs",
    "derivation_state",
    "artifact_snapshots",
    "artifact_uses",
    "record_access",
  ]) {
    expect(names).toContain(table);
  }
  const dump: DumpRow[] = [];
  for (const table of names) {
    const { rows } = await db.query<{ row: string }>(`SELECT t::text AS row FROM "${table}" t`);
    for (const { row } of rows) dump.push({ table, row });
  }
  return dump;
}

/** Where each needle occurs in the dump: "table: needle in <row excerpt>". */
export function tracesOf(dump: DumpRow[], needles: string[]): string[] {
  const lower = needles.filter((n) => n.length > 0).map((n) => n.toLowerCase());
  const found: string[] = [];
  for (const { table, row } of dump) {
    const text = row.toLowerCase();
    for (const needle of lower) {
      const at = text.indexOf(needle);
      if (at >= 0) {
        found.push(
          `${table}: ${needle.slice(0, 60)} in …${row.slice(Math.max(0, at - 120), at + needle.length + 60)}…`,
        );
      }
    }
  }
  return found;
}

/** Fails listing every trace of these needles in a fresh dump. */
export async function expectNoTraces(db: Db, needles: string[]): Promise<void> {
  const traces = tracesOf(await dumpDatabase(db), needles);
  expect(traces, `traces left:\n${traces.join("\n")}`).toEqual([]);
}
