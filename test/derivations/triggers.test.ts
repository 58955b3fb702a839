import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CRON_ENTITIES_MAX, PAUSE_AFTER_FAILURES, runCronTriggers } from "../../src/derivations/index.js";
import { fakeScore } from "../../src/models/fake.js";
import { COLLECTIONS_YAML, MINIMAL_PACKAGE } from "../support/catalog-files.js";
import {
  derivationFiles,
  derivationHarness,
  derivationYaml,
  type Harness,
  runJobs,
  WEIGHT_PROCESSOR,
} from "../support/derivations.js";
import { waitFor } from "../support/wait.js";
import { startTestWorker } from "../support/worker.js";

const WEIGHED_NOTES = COLLECTIONS_YAML.replace(
  "      priority: { path: priority, type: integer, filter: true, sort: true }\n    search_profile: main",
  "      priority: { path: priority, type: integer, filter: true, sort: true }\n    required_processors: [weight]\n    search_profile: main",
);

interface JobRow {
  id: string;
  state: string;
  run_after: Date;
  payload: { derivation: string; entity: string; reasons: { on: string; trigger: string | null }[] };
}

async function deriveJobs(h: Harness, entity: string): Promise<JobRow[]> {
  const { rows } = await h.t.db.query<JobRow>(
    "SELECT id, state, run_after, payload FROM jobs WHERE workspace_id = $1 AND kind = 'derive' AND payload->>'entity' = $2 ORDER BY created_at",
    [h.ws.id, entity],
  );
  return rows;
}

/** Runs enrichment only (no derivation runs) until every note is ready. */
async function enrich(h: Harness): Promise<void> {
  const worker = await startTestWorker(h.t.db);
  try {
    await waitFor(async () => {
      const { rows } = await h.t.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM records WHERE workspace_id = $1 AND NOT ready",
        [h.ws.id],
      );
      return rows[0]?.n === 0;
    });
  } finally {
    await worker.stop();
  }
}

const texts = [
  "Paid invoice 1",
  "Paid invoice 2",
  "Paid invoice 3",
  "Asked for a discount",
  "Asked again",
  "Escalated",
];
const scores = texts.map((text) => fakeScore(text, [0, 1]));
// Reached by the first three notes together, not by the first two.
const threshold = (scores[0] as number) + (scores[1] as number) + (scores[2] as number) - 1e-6;
const note = (text: string) => ({ collection: "notes", entity: "acme", type: "note", text });

describe("an accumulator trigger", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await derivationHarness(
      "derive-accumulate",
      derivationFiles(
        [
          derivationYaml("acc", {
            trigger: `    trigger: { on: accumulator, accumulator: { metric: weight, threshold: ${threshold}, cooldown_s: 3600 } }\n`,
          }),
          derivationYaml("unlisted", {
            trigger:
              "    trigger: { on: accumulator, accumulator: { metric: weight, threshold: 0.000001 } }\n",
          }),
        ],
        {
          processors: WEIGHT_PROCESSOR,
          triggers: ["acc.default"],
          extraFiles: { "collections/main.yaml": WEIGHED_NOTES },
        },
      ),
    );
  });
  afterAll(() => h.close());

  it("queues a job once the summed scores above the watermark reach the threshold, then waits out the cooldown", async () => {
    await h.write([note(texts[0] as string), note(texts[1] as string)]);
    await enrich(h);
    expect(await deriveJobs(h, "acme")).toEqual([]);
    await h.write([note(texts[2] as string)]);
    await enrich(h);
    const [queued, ...others] = await deriveJobs(h, "acme");
    expect(others).toEqual([]);
    expect(queued?.payload).toMatchObject({
      derivation: "acc",
      reasons: [{ on: "accumulator", trigger: "acc.default" }],
    });
    expect(queued?.run_after.getTime()).toBeLessThanOrEqual(Date.now() + 1000);

    const { run } = await h.derive("acc", "acme", {
      acc: { records: [{ key: "summary", text: "Pays", citations: "{{evidence.ids}}" }] },
    });
    expect(run.status).toBe("succeeded");
    expect(run.content.trigger_reasons).toEqual(
      expect.arrayContaining([{ on: "accumulator", trigger: "acc.default" }]),
    );
    // The derivation's own output never counts; new evidence reaching the threshold again waits.
    await h.write(texts.slice(3).map(note));
    await h.write(texts.slice(0, 3).map((text) => note(`${text} again`)));
    await enrich(h);
    const next = (await deriveJobs(h, "acme")).filter((job) => job.state === "queued");
    expect(next).toHaveLength(1);
    expect(next[0]?.run_after.getTime()).toBeGreaterThan(Date.now() + 3500 * 1000);
  });

  it("never fires a trigger the package does not list", async () => {
    expect((await deriveJobs(h, "acme")).every((job) => job.payload.derivation === "acc")).toBe(true);
  });
});

describe("write, read and cron triggers", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await derivationHarness(
      "derive-triggers",
      derivationFiles(
        [
          derivationYaml("onwrite", { trigger: "    trigger: { on: write, collections: [notes] }\n" }),
          derivationYaml("onread", {
            trigger: "    trigger: { on: read }\n",
            emit: "{ from: onread, collection: facts, type: digest, keys: [summary] }",
          }),
          derivationYaml("nightly", { trigger: '    trigger: { on: cron, cron: "0 3 * * *" }\n' }),
        ],
        { triggers: ["onwrite.default", "onread.default", "nightly.default"] },
      ),
    );
  });
  afterAll(() => h.close());

  it("a write trigger queues a job when a ready record lands in its collections", async () => {
    await h.write([note("First contact")]);
    const jobs = (await deriveJobs(h, "acme")).filter((job) => job.payload.derivation === "onwrite");
    expect(jobs).toHaveLength(1);
    expect(jobs[0]?.payload.reasons).toEqual([{ on: "write", trigger: "onwrite.default" }]);
    await h.write([note("Second contact")]);
    expect((await deriveJobs(h, "acme")).filter((job) => job.payload.derivation === "onwrite")).toHaveLength(
      1,
    );
  });

  it("a read trigger queues a job on GET /document while evidence is above the watermark, and freshness shows it", async () => {
    await h.write([{ ...note("Needs a callback"), entity: "reader" }]);
    const before = (await deriveJobs(h, "reader")).filter((job) => job.payload.derivation === "onread");
    expect(before).toEqual([]);
    const doc = (await h.get("/document?entity=reader")).json();
    const jobs = (await deriveJobs(h, "reader")).filter((job) => job.payload.derivation === "onread");
    expect(jobs).toHaveLength(1);
    expect(doc.freshness).toEqual([
      {
        derivation: "onread",
        watermark_seq: 0,
        dirty: true,
        unready: 0,
        job: { id: jobs[0]?.id, state: "queued" },
      },
    ]);
    expect((await h.get("/document?entity=reader&collections=notes")).json().freshness).toEqual([]);
  });

  it("a cron trigger fires only the latest missed tick, once, for entities with new evidence", async () => {
    await h.write([{ ...note("Overnight batch"), entity: "night" }]);
    const nightly = async () =>
      (await deriveJobs(h, "night")).filter((job) => job.payload.derivation === "nightly");
    expect(await runCronTriggers(h.t.db, new Date("2026-11-20T10:00:00Z"))).toBe(0);
    expect(await nightly()).toEqual([]);
    // Three ticks were missed (21st, 22nd, 23rd at 03:00): one job, once.
    expect(await runCronTriggers(h.t.db, new Date("2026-11-23T04:00:00Z"))).toBeGreaterThan(0);
    expect(await runCronTriggers(h.t.db, new Date("2026-11-23T05:00:00Z"))).toBe(0);
    const jobs = await nightly();
    expect(jobs).toHaveLength(1);
    expect(jobs[0]?.payload.reasons).toEqual([{ on: "cron", trigger: "nightly.default" }]);
  });

  it("a cron tick queues at most CRON_ENTITIES_MAX entities; the rest wait for the next tick", async () => {
    const entities = Array.from(
      { length: CRON_ENTITIES_MAX + 50 },
      (_, i) => `bulk-${String(i).padStart(4, "0")}`,
    );
    for (let at = 0; at < entities.length; at += 1000) {
      await h.write(entities.slice(at, at + 1000).map((entity) => ({ ...note("Bulk import"), entity })));
    }
    // The 23rd's tick is claimed (or, run alone, recorded on first sight): nothing fires yet.
    await runCronTriggers(h.t.db, new Date("2026-11-24T02:00:00Z"));
    expect(await runCronTriggers(h.t.db, new Date("2026-11-24T04:00:00Z"))).toBe(CRON_ENTITIES_MAX);
    const { rows } = await h.t.db.query<{ entity: string }>(
      `SELECT DISTINCT payload->>'entity' AS entity FROM jobs
       WHERE workspace_id = $1 AND kind = 'derive' AND payload->>'derivation' = 'nightly'
         AND payload->>'entity' LIKE 'bulk-%'`,
      [h.ws.id],
    );
    const queued = new Set(rows.map((row) => row.entity));
    // The tick's 1,000 in entity order: the earlier tests' entities that sort first take a few.
    expect(queued.size).toBeLessThanOrEqual(CRON_ENTITIES_MAX);
    expect(queued.size).toBeGreaterThanOrEqual(CRON_ENTITIES_MAX - 3);
    expect(queued.has("bulk-0000")).toBe(true);
    expect(queued.has(entities.at(-1) as string)).toBe(false);
  }, 60_000);

  it("refuses at publish a schedule firing more often than every 5 minutes, naming the minimum", async () => {
    for (const cron of ["* * * * * *", "* * * * *", "0,1 3 * * *", "*/4 * * * *"]) {
      const res = await h.post("/catalog?dry_run=true", {
        package: MINIMAL_PACKAGE,
        files: derivationFiles(
          [derivationYaml("nightly", { trigger: `    trigger: { on: cron, cron: "${cron}" }\n` })],
          {
            triggers: ["nightly.default"],
          },
        ),
      });
      expect(res.statusCode, cron).toBe(422);
      expect(res.json()).toMatchObject({ code: "definition_invalid" });
      expect(res.json().detail).toMatch(/a schedule may fire at most once every 300 s \(5 minutes\)/);
    }
    for (const cron of ["*/5 * * * *", "0 */5 * * * *", "0 3 * * *"]) {
      const res = await h.post("/catalog?dry_run=true", {
        package: MINIMAL_PACKAGE,
        files: derivationFiles(
          [derivationYaml("nightly", { trigger: `    trigger: { on: cron, cron: "${cron}" }\n` })],
          {
            triggers: ["nightly.default"],
          },
        ),
      });
      expect(res.statusCode, `${cron}: ${res.body}`).toBe(200);
    }
  });
});

describe("a schedule whose runs fail", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await derivationHarness(
      "derive-flaky",
      derivationFiles(
        [derivationYaml("nightly", { trigger: '    trigger: { on: cron, cron: "0 3 * * *" }\n' })],
        {
          triggers: ["nightly.default"],
        },
      ),
    );
  });
  afterAll(() => h.close());

  it("leaves out an entity whose run failed on the same evidence, until new evidence arrives", async () => {
    await h.write([{ ...note("Flaky input"), entity: "flaky" }]);
    // No scripted output for the task: the run fails (model_output).
    const { run } = await h.derive("nightly", "flaky", {});
    expect(run.status).toBe("failed");
    const flaky = async () => (await deriveJobs(h, "flaky")).length;
    expect(await flaky()).toBe(1);
    expect(await runCronTriggers(h.t.db, new Date("2026-11-25T02:00:00Z"))).toBe(0);
    expect(await runCronTriggers(h.t.db, new Date("2026-11-25T04:00:00Z"))).toBe(0);
    expect(await flaky()).toBe(1);
    await h.write([{ ...note("Flaky input, corrected"), entity: "flaky" }]);
    expect(await runCronTriggers(h.t.db, new Date("2026-11-26T04:00:00Z"))).toBe(1);
    expect(await flaky()).toBe(2);
  });

  it("pauses after PAUSE_AFTER_FAILURES failed runs: ticks pass it, GET /runs says so, a changed definition resumes it", async () => {
    const failing = Array.from({ length: PAUSE_AFTER_FAILURES }, (_, i) => `fail-${i}`);
    await h.write(failing.map((entity) => ({ ...note("Always fails"), entity })));
    for (const entity of failing) {
      expect((await h.post("/processors/nightly/run", { entity })).statusCode).toBe(202);
    }
    // No scripted output: every run fails.
    await runJobs(h.t.db, h.ws.id, {});
    const runs = (await h.get("/runs")).json();
    expect(runs.paused).toEqual([
      {
        derivation: "nightly",
        failed_runs: PAUSE_AFTER_FAILURES,
        since: expect.any(String),
        last_failure: "model_output",
      },
    ]);
    await h.write([{ ...note("Fresh evidence"), entity: "fresh" }]);
    // The 26th's tick is claimed (or, run alone, recorded on first sight); the 27th's passes it.
    await runCronTriggers(h.t.db, new Date("2026-11-27T02:00:00Z"));
    expect(await runCronTriggers(h.t.db, new Date("2026-11-27T04:00:00Z"))).toBe(0);
    expect(await deriveJobs(h, "fresh")).toEqual([]);
    // A publish that changes the definition (here its schedule) resumes it.
    const republished = await h.post("/catalog", {
      package: MINIMAL_PACKAGE,
      files: derivationFiles(
        [derivationYaml("nightly", { trigger: '    trigger: { on: cron, cron: "0 4 * * *" }\n' })],
        {
          triggers: ["nightly.default"],
        },
      ),
    });
    expect(republished.statusCode, republished.body).toBe(200);
    expect((await h.get("/runs")).json().paused).toEqual([]);
    expect(await runCronTriggers(h.t.db, new Date("2026-11-28T05:00:00Z"))).toBe(1);
    expect(await deriveJobs(h, "fresh")).toHaveLength(1);
  });
});
