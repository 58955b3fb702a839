// engram export / import, the heavy round trip through the domain functions: a workspace filled
// through the API on PGlite, exported, imported into the PostgreSQL server (a second PGlite when
// no server is configured), exported again and imported back into PGlite, looks the same to every
// client read on each side; with --with-embeddings records are ready at once.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prepareDatabase } from "../../src/database.js";
import { openPglite } from "../../src/platform/db/index.js";
import { embeddingKind, NOT_EXPORTED, TABLE_KINDS } from "../../src/portability/kinds.js";
import { createTestApp, type TestApp } from "../support/app.js";
import { createTestDb, onServer, type TestDb } from "../support/db.js";
import { waitFor } from "../support/wait.js";
import { enrichAll, startTestWorker } from "../support/worker.js";
import { type Client, exportToFile, fillWorkspace, importFromFile, observe } from "./fixture.js";

/** The PGlite the workspace is filled on: the run's own database unless that is the server. */
async function pgliteDb(): Promise<TestDb> {
  if (!onServer) return createTestDb();
  const db = await openPglite({ dataDir: "memory://" });
  await prepareDatabase(db);
  return { db, url: undefined, close: () => db.close() };
}

/** A file's lines as objects, minus what legitimately differs between two exports of one workspace. */
async function comparableLines(file: string): Promise<unknown[]> {
  const lines = (await readFile(file, "utf8")).trimEnd().split("\n").slice(1);
  return lines.flatMap((line) => {
    const row = JSON.parse(line);
    // Access marks move when a search returns a record; runs are numbered by each database.
    if (row.kind === "record_access") return [];
    if (row.kind === "run") delete row.seq;
    if (row.kind === "end") delete row.counts.record_access;
    return [row];
  });
}

/** Each observation alike, named when one is not. */
function expectSame(copy: Record<string, unknown>, original: Record<string, unknown>): void {
  expect(Object.keys(copy)).toEqual(Object.keys(original));
  for (const [name, seen] of Object.entries(original)) expect(copy[name], name).toEqual(seen);
}

async function jobsOf(t: TestApp, workspaceId: string): Promise<{ kind: string; n: number }[]> {
  const { rows } = await t.db.query<{ kind: string; n: number }>(
    "SELECT kind, count(*)::int AS n FROM jobs WHERE workspace_id = $1 GROUP BY kind ORDER BY kind",
    [workspaceId],
  );
  return rows;
}

describe("engram export and import: the round trip", () => {
  let dir: string;
  let source: TestApp;
  let target: TestApp;
  let original: Record<string, unknown>;
  const client = (t: TestApp, key: string): Client => ({
    app: t.app,
    headers: { authorization: `Bearer ${key}` },
  });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "engram-portability-"));
    source = await createTestApp({ testDb: await pgliteDb() });
    target = await createTestApp({ testDb: await createTestDb() });
    const ws = await source.workspace("source");
    await fillWorkspace(client(source, ws.key), source.db, ws.id);
    // Searches mark what they return, and marks weigh in the default ranks: observed once before,
    // the workspace is seen as it is exported (a mark within the minute is not made again).
    await observe(client(source, ws.key));
    original = await observe(client(source, ws.key));
  }, 240_000);
  afterAll(async () => {
    await source?.close();
    await target?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("gives identical timelines, documents, histories, deltas, searches, renders and runs on each side", async () => {
    const first = join(dir, "first.jsonl");
    const counts = await exportToFile(source.db, "source", first);
    expect(counts).toMatchObject({
      record: expect.any(Number),
      head: expect.any(Number),
      run: expect.any(Number),
    });
    for (const kind of ["record", "head", "record_access", "cursor", "derivation_state", "run", "backfill"]) {
      expect(counts[kind], kind).toBeGreaterThan(0);
    }
    expect(counts).toMatchObject({ artifact_snapshot: 1, artifact_use: 1 });

    // Into the server (or a second PGlite): a new workspace, its key printed once.
    const moved = await importFromFile(target.db, "moved", first);
    expect(moved.api_key).toMatch(/^egk_/);
    expect(moved.counts).toEqual(counts);
    expect(moved.enrichment_jobs).toBeGreaterThan(0);
    await enrichAll(target.db, moved.id);
    // Records ready where they were exported are re-embedded without firing their triggers again.
    expect((await jobsOf(target, moved.id)).map((row) => row.kind)).toEqual(["enrich"]);
    expectSame(await observe(client(target, moved.api_key as string)), original);

    // And back into PGlite, beside the source: same ids, another workspace.
    const second = join(dir, "second.jsonl");
    expect(await exportToFile(target.db, "moved", second)).toEqual(counts);
    expect(await comparableLines(second)).toEqual(await comparableLines(first));
    const back = await importFromFile(source.db, "back", second);
    await enrichAll(source.db, back.id);
    expectSame(await observe(client(source, back.api_key as string)), original);
  }, 240_000);

  it("with embeddings: records are imported ready, nothing is queued, vector search is identical at once", async () => {
    const file = join(dir, "vectors.jsonl");
    const counts = await exportToFile(source.db, "source", file, { withEmbeddings: true });
    expect(counts.embedding).toBeGreaterThan(0);
    const imported = await importFromFile(target.db, "vectors", file);
    expect(imported.enrichment_jobs).toBe(0);
    expect(await jobsOf(target, imported.id)).toEqual([]);
    const { rows } = await target.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM records WHERE workspace_id = $1 AND NOT ready",
      [imported.id],
    );
    expect(rows[0]?.n).toBe(0);
    expectSame(await observe(client(target, imported.api_key as string)), original);
    // Each vector's rows grouped alike, each group with one lead (src/records/vector-leads.ts).
    if (target.db.hasVector) {
      const groups = async (t: TestApp, workspaceId: string) =>
        (
          await t.db.query<{ record_id: string; space: string; held: number; leads: number }>(
            `SELECT record_id, space, count(*) OVER (PARTITION BY space, vhash)::int AS held,
               count(*) FILTER (WHERE lead) OVER (PARTITION BY space, vhash)::int AS leads
             FROM embeddings WHERE workspace_id = $1 ORDER BY record_id, space`,
            [workspaceId],
          )
        ).rows;
      const sourceId = (
        await source.db.query<{ id: string }>("SELECT id FROM workspaces WHERE name = 'source'")
      ).rows[0]?.id as string;
      const groupsImported = await groups(target, imported.id);
      expect(groupsImported).toEqual(await groups(source, sourceId));
      expect(groupsImported.some((row) => row.held > 1)).toBe(true);
      expect(groupsImported.every((row) => row.leads === 1)).toBe(true);
    }
  }, 120_000);

  it("queues again what was in flight: an unready record (its triggers fire) and a live backfill", async () => {
    const file = join(dir, "in-flight.jsonl");
    await exportToFile(source.db, "source", file, { withEmbeddings: true });
    const rows = (await readFile(file, "utf8"))
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    const note = rows.find((row) => row.kind === "record" && row.collection === "notes");
    Object.assign(note, { ready: false, search_text: null, search_length: null, search_config: null });
    const backfill = rows.find((row) => row.kind === "backfill");
    Object.assign(backfill, { state: "live", cursor_seq: 0, scanned: 0 });
    await writeFile(file, `${rows.map((row) => JSON.stringify(row)).join("\n")}\n`);

    const imported = await importFromFile(target.db, "in-flight", file);
    expect(imported.enrichment_jobs).toBe(1);
    const { rows: jobs } = await target.db.query<{ id: string; kind: string; payload: any }>(
      "SELECT id, kind, payload FROM jobs WHERE workspace_id = $1 ORDER BY kind",
      [imported.id],
    );
    expect(jobs.map((job) => [job.kind, job.payload])).toEqual([
      ["backfill", { backfill_id: backfill.id }],
      ["enrich", { record_ids: [note.id] }],
    ]);
    const copy = client(target, imported.api_key as string);
    const listed = await copy.app.inject({ url: `/backfill/${backfill.id}`, headers: copy.headers });
    expect(listed.json()).toMatchObject({ state: "live", job_id: jobs[0]?.id });
    const worker = await startTestWorker(target.db);
    try {
      await waitFor(async () => {
        const { rows: left } = await target.db.query<{ n: number }>(
          `SELECT (SELECT count(*) FROM records WHERE workspace_id = $1 AND NOT ready)
             + (SELECT count(*) FROM backfills WHERE workspace_id = $1 AND state <> 'done') AS n`,
          [imported.id],
        );
        return Number(left[0]?.n) === 0;
      });
    } finally {
      await worker.stop();
    }
    // Becoming ready for the first time, the note fires the write trigger it would have fired.
    expect((await jobsOf(target, imported.id)).map((row) => row.kind)).toContain("derive");
  }, 120_000);

  it("the format carries every column of every per-workspace table, or names it as not exported", async () => {
    const { rows } = await target.db.query<{ table_name: string; column_name: string }>(
      `SELECT c.table_name, c.column_name FROM information_schema.columns c
       WHERE c.table_schema = current_schema() AND c.table_name IN (
         SELECT table_name FROM information_schema.columns WHERE column_name = 'workspace_id'
           AND table_schema = current_schema())
       ORDER BY c.table_name, c.column_name`,
    );
    const tables = new Map<string, string[]>();
    for (const row of rows)
      tables.set(row.table_name, [...(tables.get(row.table_name) ?? []), row.column_name]);
    const kinds = [...TABLE_KINDS, embeddingKind(target.db.hasVector)];
    for (const [table, columns] of tables) {
      if (NOT_EXPORTED.includes(table)) continue;
      const kind = kinds.find((k) => k.table === table);
      expect(kind, `table ${table} is neither exported nor named in NOT_EXPORTED`).toBeDefined();
      expect([...(kind?.columns ?? []), ...(kind?.omitted ?? []), "workspace_id"].sort(), table).toEqual(
        [...columns].sort(),
      );
    }
  });
});
