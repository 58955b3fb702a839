// kill -9 of the server during concurrent batch writes with dedupe keys, then a restart and a
// retry of every batch: each acknowledged write is present exactly once, no batch is partial,
// and seq numbers are unique, every row written after the restart taking a seq above every row
// that survived it. PGlite data directory and server.
import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MINIMAL_PACKAGE, minimalFiles } from "../support/catalog-files.js";
import { type CliStorage, cliStorage, listening, runCli, startCli } from "../support/cli.js";

const WRITERS = 4;
const ROWS = 25;
/** Acknowledged batches before the kill (more are in flight when it lands). */
const ACKED_BEFORE_KILL = 12;

type Batch = { n: number; rows: object[] };

const batch = (n: number): Batch => ({
  n,
  rows: Array.from({ length: ROWS }, (_, i) => ({
    collection: "notes",
    entity: `e${n % 5}`,
    type: "note",
    text: `batch ${n} row ${i}`,
    dedupe_key: `b${n}-r${i}`,
  })),
});

describe("the server killed during concurrent batch writes", () => {
  let storage: CliStorage;
  let env: NodeJS.ProcessEnv;
  let key: string;
  let child: ChildProcess | undefined;

  let closed: Promise<unknown> = Promise.resolve();
  const serve = async () => {
    child = startCli(["serve", "--port", "0", "--no-worker", "--no-demo"], env);
    const started = child;
    closed = new Promise((resolve) => started.once("close", resolve));
    return (await listening(started)).url;
  };
  const post = (url: string, path: string, body: object) =>
    fetch(`${url}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    storage = await cliStorage();
    // info: serve logs its address at that level.
    env = {
      ...storage.env,
      LOG_LEVEL: "info",
    };
    const created = await runCli(["workspace", "create", "crash", "--json"], env);
    expect(created.code, created.stderr).toBe(0);
    key = JSON.parse(created.stdout).api_key;
  });
  afterAll(async () => {
    child?.kill("SIGKILL");
    await storage.cleanup();
  });

  // Two `engram serve` starts on a PGlite data directory took 30 s on a loaded 2-core machine.
  it("keeps every acknowledged write exactly once and never a partial batch", async () => {
    let url = await serve();
    const published = await post(url, "/catalog", { package: MINIMAL_PACKAGE, files: minimalFiles() });
    expect(published.status).toBe(200);

    const sent: Batch[] = [];
    const acked = new Set<number>();
    let next = 0;
    let killed = false;
    const writer = async () => {
      while (!killed) {
        const b = batch(next++);
        sent.push(b);
        try {
          const res = await post(url, "/records", { records: b.rows });
          if (res.status === 200) acked.add(b.n);
        } catch {
          return; // the connection died with the server
        }
        if (acked.size >= ACKED_BEFORE_KILL && !killed) {
          killed = true;
          child?.kill("SIGKILL");
        }
      }
    };
    await Promise.all(Array.from({ length: WRITERS }, writer));
    await closed;
    expect(acked.size).toBeGreaterThanOrEqual(ACKED_BEFORE_KILL);
    // The other writers had batches in flight when the kill landed.
    expect(sent.length).toBeGreaterThan(acked.size);

    url = await serve();
    // The rows that survived the kill: every row written from now on must come after them.
    const survived = await timelineRows(url);
    const maxSeqBefore = Math.max(0, ...survived.map((row) => row.seq));
    const survivedIds = new Set(survived.map((row) => row.id));
    // One batch surely new after the restart, beside the retries of those lost in flight.
    sent.push(batch(next++));
    for (const b of sent) {
      const res = await post(url, "/records", { records: b.rows });
      expect(res.status, await res.clone().text()).toBe(200);
      const body = (await res.json()) as { inserted: { seq?: number }[]; duplicates: unknown[] };
      // A batch either committed whole before the kill (all duplicates now) or not at all.
      expect([0, ROWS], `batch ${b.n}`).toContain(body.duplicates.length);
      if (acked.has(b.n)) expect(body.duplicates.length, `acknowledged batch ${b.n}`).toBe(ROWS);
    }

    const rows = await timelineRows(url);
    const seqs = rows.map((row) => row.seq);
    expect(seqs).toHaveLength(sent.length * ROWS);
    expect(new Set(seqs).size).toBe(seqs.length);
    const written = rows.filter((row) => !survivedIds.has(row.id)).map((row) => row.seq);
    expect(written.length).toBeGreaterThanOrEqual(ROWS);
    expect(Math.min(...written)).toBeGreaterThan(maxSeqBefore);
    const texts = new Set(rows.map((row) => row.text));
    for (const b of sent)
      for (let i = 0; i < ROWS; i++) expect(texts.has(`batch ${b.n} row ${i}`)).toBe(true);
  }, 90_000);

  /** Every record of the workspace through /timeline, newest first. */
  async function timelineRows(url: string): Promise<{ id: string; seq: number; text: string }[]> {
    const rows: { id: string; seq: number; text: string }[] = [];
    let before: number | null = null;
    do {
      const query: string = `/timeline?limit=100${before === null ? "" : `&before_seq=${before}`}`;
      const res = await fetch(`${url}${query}`, { headers: { authorization: `Bearer ${key}` } });
      const page = (await res.json()) as {
        records: { id: string; seq: number; text: string }[];
        next_before_seq: number | null;
      };
      rows.push(...page.records);
      before = page.next_before_seq;
    } while (before !== null);
    return rows;
  }
});
