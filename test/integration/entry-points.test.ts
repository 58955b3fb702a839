// Every entry point wires the modules before its first write (src/deps.ts wireModules): records
// turning ready fire the derivations' triggers whether they were written through the tests' app
// builder, through `engram serve` (its API and the worker beside it), or enriched by a separate
// `engram worker`. The notes need a score before they are ready, so the write trigger fires where
// they turn ready: in the serving process, or in the worker's.
import type { ChildProcess } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.js";
import { COLLECTIONS_YAML, MINIMAL_PACKAGE } from "../support/catalog-files.js";
import {
  type CliResult,
  type CliStorage,
  cliStorage,
  collect,
  listening,
  startCli,
  startMeteredWorker,
} from "../support/cli.js";
import { derivationFiles, derivationYaml, WEIGHT_PROCESSOR } from "../support/derivations.js";
import { parse, value } from "../support/metrics.js";
import { waitFor } from "../support/wait.js";
import { startTestWorker } from "../support/worker.js";

const TOKEN = "entry-points-metrics-token-5e1";

const CATALOG = {
  package: MINIMAL_PACKAGE,
  files: derivationFiles(
    [derivationYaml("onwrite", { trigger: "    trigger: { on: write, collections: [notes] }\n" })],
    {
      processors: WEIGHT_PROCESSOR,
      triggers: ["onwrite.default"],
      extraFiles: {
        "collections/main.yaml": COLLECTIONS_YAML.replace(
          "    search_profile: main",
          "    required_processors: [weight]\n    search_profile: main",
        ),
      },
    },
  ),
};
const NOTE = { collection: "notes", entity: "acme", type: "note", text: "Called about the invoice" };

/** A workspace with the catalog published and a note written (unready), in the storage's database. */
async function prepared(t: TestApp) {
  const ws = await t.workspace("entry");
  const published = await t.publish(ws.headers, CATALOG);
  expect(published.statusCode, published.body).toBe(200);
  return ws;
}

async function deriveJobs(t: TestApp, workspaceId: string): Promise<number> {
  const { rows } = await t.db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM jobs WHERE workspace_id = $1 AND kind = 'derive'",
    [workspaceId],
  );
  return rows[0]?.n ?? 0;
}

describe("a write fires its triggers through every entry point", () => {
  let child: ChildProcess | undefined;
  let exited: Promise<CliResult> | undefined;
  let storage: CliStorage | undefined;
  afterEach(async () => {
    child?.kill("SIGTERM");
    await exited;
    await storage?.cleanup();
    child = undefined;
    exited = undefined;
    storage = undefined;
  });

  /** The storage's database as a test app while `use` runs (the embedded one has one holder). */
  async function withApp<T>(use: (t: TestApp) => Promise<T>): Promise<T> {
    const db = await (storage as CliStorage).open();
    const t = await createTestApp({
      testDb: { db, url: undefined, close: () => (storage as CliStorage).release(db) },
    });
    try {
      return await use(t);
    } finally {
      await t.close();
    }
  }

  it("the tests' app builder and its worker", async () => {
    const t = await createTestApp();
    try {
      const ws = await prepared(t);
      await t.writeRecords(ws.headers, [NOTE]);
      expect(await deriveJobs(t, ws.id)).toBe(0);
      const worker = await startTestWorker(t.db);
      try {
        await waitFor(async () => (await deriveJobs(t, ws.id)) > 0);
      } finally {
        await worker.stop();
      }
    } finally {
      await t.close();
    }
  });

  it("engram serve: its API takes the write and its worker fires the trigger", async () => {
    storage = await cliStorage();
    const ws = await withApp(prepared);
    child = startCli(["serve", "--port", "0"], { ...storage.env, LOG_LEVEL: "info" });
    const started = listening(child);
    exited = collect(child);
    const url = (await started).url;
    const res = await fetch(`${url}/records`, {
      method: "POST",
      headers: { ...ws.headers, "content-type": "application/json" },
      body: JSON.stringify({ records: [NOTE] }),
    });
    expect(res.status).toBe(200);
    await waitFor(async () => {
      const jobs = await fetch(`${url}/jobs?kind=derive`, { headers: ws.headers });
      return ((await jobs.json()).jobs as unknown[]).length > 0;
    }, 60_000);
  }, 90_000);

  it("engram worker: the records it enriches fire the trigger in its process", async () => {
    storage = await cliStorage();
    await withApp(async (t) => {
      const ws = await prepared(t);
      await t.writeRecords(ws.headers, [NOTE]);
      expect(await deriveJobs(t, ws.id)).toBe(0);
    });
    const worker = await startMeteredWorker(storage.env, TOKEN);
    ({ child, exited } = worker);
    const { url } = worker;
    await waitFor(async () => {
      const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
      if (res.status !== 200) return false;
      const samples = parse(await res.text());
      const open = ["queued", "running", "dead"].map((state) =>
        value(samples, "engram_jobs", { kind: "derive", state }),
      );
      return (
        value(samples, "engram_job_attempts_total", { kind: "derive" }) + open.reduce((a, b) => a + b, 0) > 0
      );
    }, 60_000);
  }, 90_000);
});
