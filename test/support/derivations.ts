// A small catalog with derivations, and running derivation jobs under a chosen fake script.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LightMyRequestResponse } from "fastify";
import { pino } from "pino";
import { stringify } from "yaml";
import { DERIVE_JOB, deriveHandler } from "../../src/derivations/index.js";
import type { Models } from "../../src/models/index.js";
import type { Db } from "../../src/platform/db/index.js";
import { Worker } from "../../src/worker/runner.js";
import { createTestApp, type TestApp } from "./app.js";
import { MINIMAL_PACKAGE, minimalFiles } from "./catalog-files.js";
import { waitFor } from "./wait.js";
import { startTestWorker } from "./worker.js";

const OUTPUT_SCHEMA = " { type: object, properties: { records: { type: array } }, required: [records] }";

const LIMITS = `{ max_tasks: 1, max_llm_calls: 2, max_retrieved_records: 50, max_visible_records: 50, max_total_tokens: 20000, max_wall_s: 60 }`;

/** A score processor over notes (the fake scores it from the text). */
export const WEIGHT_PROCESSOR = `processors:
  - name: weight
    kind: score
    input: { collections: [notes] }
    model: chat
    scale: [0, 1]
    default: 0
    prompt: Rate how much this note matters.
`;

/** A derivation over notes (changes) and facts (current) emitting into facts; fields overridable. */
export function derivationYaml(
  name: string,
  extra: { emit?: string; limits?: string; sources?: string; trigger?: string } = {},
): string {
  return `  - name: ${name}
${extra.trigger ?? ""}    sources:
${
  extra.sources ??
  `      notes: { kind: changes, collections: [notes] }
      facts: { kind: current, collections: [facts], allow_empty: true }`
}
    limits: ${extra.limits ?? LIMITS}
    tasks:
      - id: ${name}
        use: llm
        with:
          prompt: Summarize what the notes say about the entity.
          output_schema:${OUTPUT_SCHEMA}
    emit: ${extra.emit ?? "{ from: NAME, collection: facts, type: digest, keys: [summary, risk] }"}
`.replace("from: NAME", `from: ${name}`);
}

/** minimalFiles plus derivations (and anything else) listed in the package. */
export function derivationFiles(
  derivations: string[],
  options: {
    processors?: string;
    triggers?: string[];
    extraFiles?: Record<string, string>;
    packageExtra?: string;
  } = {},
): Record<string, string> {
  const names = derivations.map((yaml) => /name: ([a-z_0-9]+)/.exec(yaml)?.[1] as string);
  return minimalFiles({
    "derivations/main.yaml": `derivations:\n${derivations.join("")}`,
    ...(options.processors ? { "processors/main.yaml": options.processors } : {}),
    "packages/demo-pack.yaml": `name: demo-pack
version: 1.0.0
collections: [notes@1, facts@1]
search_profiles: [main]
processors: [${[...names, ...(options.processors ? [...options.processors.matchAll(/name: ([a-z_0-9]+)/g)].map((m) => m[1]) : [])].join(", ")}]
triggers: [${(options.triggers ?? []).join(", ")}]
${options.packageExtra ?? ""}`,
    ...options.extraFiles,
  });
}

/** A fake script file (YAML) for FAKE_MODEL_SCRIPT. */
export function scriptFile(script: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), "engram-script-"));
  const path = join(dir, "script.yaml");
  writeFileSync(path, stringify(script));
  return path;
}

/** Runs a worker (derivations included) with this script until the job is no longer queued or running. */
export async function runJobs(
  db: Db,
  workspaceId: string,
  script: Record<string, unknown>,
  env: Record<string, string> = {},
): Promise<void> {
  const worker = await startTestWorker(
    db,
    { FAKE_MODEL_SCRIPT: scriptFile(script), ...env },
    { derive: true },
  );
  try {
    await waitFor(async () => {
      const { rows } = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM jobs WHERE workspace_id = $1
           AND (state = 'running' OR (state = 'queued' AND run_after <= now()))`,
        [workspaceId],
      );
      return rows[0]?.n === 0;
    });
  } finally {
    await worker.stop();
  }
}

export interface Harness {
  t: TestApp;
  ws: { id: string; headers: { authorization: string } };
  post(url: string, payload: object): Promise<LightMyRequestResponse>;
  get(url: string): Promise<LightMyRequestResponse>;
  /** Writes records; returns their ids. */
  write(records: object[]): Promise<string[]>;
  /** Queues a run of the derivation for the entity, runs the worker with this script, returns job and run. */
  derive(name: string, entity: string, script: Record<string, unknown>): Promise<{ job: any; run: any }>;
  close(): Promise<void>;
}

/** An app with one workspace on which these catalog files are published. */
export async function derivationHarness(name: string, files: Record<string, string>): Promise<Harness> {
  const t = await createTestApp();
  const ws = await t.workspace(name);
  const post = (url: string, payload: object) =>
    t.app.inject({ method: "POST", url, headers: ws.headers, payload });
  const get = (url: string) => t.app.inject({ url, headers: ws.headers });
  const published = await post("/catalog", { package: MINIMAL_PACKAGE, files });
  if (published.statusCode !== 200) throw new Error(`publishing failed: ${published.body}`);
  const harness: Harness = {
    t,
    ws,
    post,
    get,
    async write(records) {
      const res = await post("/records", { records });
      if (res.statusCode !== 200) throw new Error(`write failed: ${res.body}`);
      return res.json().inserted.map((row: { id: string }) => row.id);
    },
    async derive(derivation, entity, script) {
      const res = await post(`/processors/${derivation}/run`, { entity });
      if (res.statusCode !== 202) throw new Error(`run request failed: ${res.body}`);
      await runJobs(t.db, ws.id, script);
      const job = (await get(`/jobs/${res.json().job_id}`)).json();
      const runs = (
        await get(`/runs?entity=${encodeURIComponent(entity)}&processor=${derivation}&limit=1`)
      ).json().runs;
      return { job, run: runs[0] ? (await get(`/runs/${runs[0].id}`)).json() : undefined };
    },
    close: () => t.close(),
  };
  return harness;
}

/**
 * A worker (not started) running derivations whose model calls pass a gate, open until gate()
 * closes it: then the next call waits until release(), and `entered` resolves when one arrives.
 */
export function gatedDeriveWorker(db: Db, real: Models) {
  let arrive = () => {};
  let opened: Promise<void> = Promise.resolve();
  const gated: Models = {
    embed: (alias, texts) => real.embed(alias, texts),
    score: (alias, input) => real.score(alias, input),
    rerank: (alias, input) => real.rerank(alias, input),
    async json(alias, input) {
      arrive();
      await opened;
      return real.json(alias, input);
    },
  };
  const worker = new Worker({
    db,
    log: pino({ level: "silent" }),
    handlers: { [DERIVE_JOB]: deriveHandler({ models: () => gated }) },
    pollMs: 20,
  });
  return {
    worker,
    gate(): { entered: Promise<void>; release: () => void } {
      let release = () => {};
      opened = new Promise((resolve) => {
        release = resolve;
      });
      const entered = new Promise<void>((resolve) => {
        arrive = resolve;
      });
      return { entered, release };
    },
  };
}
