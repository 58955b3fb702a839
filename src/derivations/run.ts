// The derivation job (DESIGN.md, "Derivations"): read the sources → render evidence with ids →
// run the tasks under the limits block → validate the emission → ONE transaction writes the
// emitted records, the run and the new watermark. A run row is written when the run starts, so
// GET /runs shows it `running`; it always ends succeeded, skipped or failed with a
// classification. Model calls happen outside transactions; every commit is fenced on the job's
// lease and on the pair's generation (a rebind or an erasure in between holds the run off).
import { randomUUID } from "node:crypto";
import {
  activeCollection,
  confirmCatalog,
  type DerivationDef,
  type InstalledCatalog,
  modelAlias,
  requireCatalog,
} from "../catalog/index.js";
import type { Models } from "../models/index.js";
import type { Queryable } from "../platform/db/index.js";
import { hashJson } from "../platform/hash.js";
import { insertRecords, lastSeq, lockSeq, type NewRecord } from "../records/index.js";
import {
  endJob,
  fence,
  type Job,
  type JobContext,
  type JobHandler,
  LeaseLostError,
  succeed,
} from "../worker/index.js";
import { type BasisHead, type Emission, keyedDivergence, planEmission } from "./emission.js";
import { isTransient, RunFailure, type Usage } from "./failure.js";
import { activeHeads, listHeads } from "./heads.js";
import { enqueueDerivation, lockState, type TriggerReason } from "./queue.js";
import { insertRun } from "./runs.js";
import { type ReadResult, readSources } from "./sources.js";
import * as sql from "./sql.js";
import { runTasks } from "./tasks.js";

export interface DeriveOptions {
  /** The models of a catalog (cached by the caller). */
  models(catalog: InstalledCatalog): Models;
}

interface Started {
  runId: string;
  watermark: number;
  generation: number;
  checkpoint: number;
  startedAt: number;
}

interface RunContext {
  job: Job;
  ctx: JobContext;
  catalog: InstalledCatalog;
  def: DerivationDef;
  entity: string;
}

const NO_USAGE: Usage = { calls: 0, prompt_tokens: 0, completion_tokens: 0 };

/** The hash of what a derivation reads: a changed scope is what rebind repoints. */
export function sourceHash(def: DerivationDef): string {
  return hashJson(def.sources);
}

/** Runs with a changes source are incremental; the others read complete state. */
export function sourceKind(def: DerivationDef): "changes" | "snapshot" {
  return Object.values(def.sources).some((source) => source.kind === "changes") ? "changes" : "snapshot";
}

/** What the run read, for its audit (ids and counts, never text). */
function readReceipt(
  start: Started,
  read: ReadResult | undefined,
  basis: Map<string, BasisHead> | undefined,
  def: DerivationDef,
) {
  return {
    checkpoint_seq: start.checkpoint,
    watermark_from: start.watermark,
    watermark_to: read ? read.watermark : null,
    generation: start.generation,
    sources: (read?.sources ?? []).map((source) => ({
      name: source.name,
      kind: source.kind,
      record_count: source.records.length,
      tokens: source.tokens,
      truncated: source.truncated,
    })),
    heads: basis ? listHeads(def.emit.collection, basis) : [],
  };
}

function visibleSources(read: ReadResult | undefined) {
  return (read?.sources ?? []).map((source) => ({
    source: source.name,
    kind: source.kind,
    record_ids: source.records.map((record) => record.id),
  }));
}

function emissionAudit(
  def: DerivationDef,
  basis: Map<string, BasisHead> | undefined,
  emission: Emission | undefined,
  divergence: ReturnType<typeof keyedDivergence>,
) {
  const covered = new Set(emission?.candidate_set.covered_keys ?? []);
  const heads = basis ? listHeads(def.emit.collection, basis) : [];
  return {
    collection: def.emit.collection,
    type: def.emit.type,
    review: def.emit.review,
    complete: def.emit.complete,
    keys: def.emit.keys,
    basis: { heads },
    candidate_set: emission?.candidate_set ?? { covered_keys: [], divergence: [] },
    rejected: emission?.rejected ?? [],
    expected_active_heads: [...covered].sort().map((key) => ({
      collection: def.emit.collection,
      key,
      record_id: basis?.get(key)?.record_id ?? null,
    })),
    keyed_divergence: divergence,
  };
}

async function startRun(run: RunContext, reasons: TriggerReason[]): Promise<Started> {
  const { job, ctx, catalog, def, entity } = run;
  const ws = job.workspace_id;
  // An earlier attempt of this job whose worker died left its run running: it did not finish.
  await ctx.db.query(sql.ABANDON_RUNS, [ws, job.id]);
  return ctx.db.transaction(async (tx) => {
    await fence(tx, job, ctx.owner);
    const state = await lockState(tx, ws, def.name, entity);
    const checkpoint = await lastSeq(tx, ws);
    const runId = randomUUID();
    await insertRun(tx, {
      workspaceId: ws,
      id: runId,
      operation: "derive",
      derivation: def.name,
      entity,
      sourceKind: sourceKind(def),
      jobId: job.id,
      sourceRunId: null,
      reasons,
      catalog,
    });
    return {
      runId,
      watermark: Number(state.watermark_seq),
      generation: Number(state.generation),
      checkpoint,
      startedAt: Date.now(),
    };
  });
}

interface Outcome {
  status: "succeeded" | "failed" | "skipped";
  failure: RunFailure | null;
  read?: ReadResult;
  basis?: Map<string, BasisHead>;
  emission?: Emission;
  divergence: ReturnType<typeof keyedDivergence>;
  usage: Usage;
  outputIds: string[];
}

async function finishRun(tx: Queryable, run: RunContext, start: Started, outcome: Outcome): Promise<void> {
  const citations = [...new Set((outcome.emission?.rows ?? []).flatMap((row) => row.citations))];
  await tx.query(sql.FINISH_RUN, [
    run.job.workspace_id,
    start.runId,
    outcome.status,
    outcome.failure?.kind ?? null,
    outcome.failure?.message ?? null,
    JSON.stringify(readReceipt(start, outcome.read, outcome.basis, run.def)),
    JSON.stringify(emissionAudit(run.def, outcome.basis, outcome.emission, outcome.divergence)),
    JSON.stringify(visibleSources(outcome.read)),
    outcome.status === "succeeded" ? citations : [],
    outcome.outputIds,
    JSON.stringify(outcome.usage),
  ]);
}

/** The emitted rows as records of the emission collection. */
function emittedRecords(run: RunContext, runId: string, emission: Emission): NewRecord[] {
  const { catalog, def, entity } = run;
  const target = activeCollection(catalog.index, def.emit.collection);
  if (!target) throw new RunFailure("internal", `collection ${def.emit.collection} has no active version`);
  const collection = target.def;
  return emission.rows.map((row, index) => ({
    index,
    collection,
    collectionHash: catalog.contracts[`${collection.name}@${collection.version}`] as string,
    entity,
    type: def.emit.type,
    text: row.text,
    content: row.content,
    occurredAt: null,
    dedupeKey: null,
    key: row.key,
    status: def.emit.review === "required" ? "draft" : "active",
    tombstone: row.retract,
    derivedFrom: row.citations,
    citations: row.citations,
    runId,
    scores: {},
    annotations: {},
    payloadHash: hashJson({ run: runId, index: row.index }),
  }));
}

/** The success transaction: records, run, watermark, job — or a RunFailure and nothing written. */
async function commit(run: RunContext, start: Started, outcome: Outcome, output: unknown): Promise<void> {
  const { job, ctx, def, entity } = run;
  const ws = job.workspace_id;
  await ctx.db.transaction(async (tx) => {
    const lastSeq = await lockSeq(tx, ws);
    await fence(tx, job, ctx.owner);
    const state = (
      await tx.query<{ watermark_seq: number; generation: number }>(sql.LOCK_STATE, [ws, def.name, entity])
    ).rows[0];
    if (Number(state?.generation) !== start.generation) {
      throw new RunFailure("cancelled", "a rebind or an erasure held this run off; nothing was written");
    }
    if (Number(state?.watermark_seq) !== start.watermark) {
      throw new RunFailure(
        "cancelled",
        "another run of this derivation and entity finished first; nothing was written",
      );
    }
    if ((await confirmCatalog(tx, ws, run.catalog)) !== run.catalog) {
      throw new RunFailure("internal", "the catalog changed while the run was working; it will run again");
    }
    const collection = activeCollection(run.catalog.index, def.emit.collection)?.def;
    if (!collection)
      throw new RunFailure("internal", `collection ${def.emit.collection} has no active version`);
    const context = {
      emit: def.emit,
      collection,
      shown: new Set(outcome.read?.shown.map((record) => record.id.toLowerCase())),
      basis: outcome.basis ?? new Map(),
      current: await activeHeads(tx, ws, entity, def.emit),
    };
    outcome.divergence = keyedDivergence(context);
    outcome.emission = planEmission(output, context);
    if (outcome.emission.failure) throw new RunFailure("emission", outcome.emission.failure);
    const { rows: inserted } = await insertRecords(tx, {
      workspaceId: ws,
      catalog: run.catalog,
      lastSeq,
      rows: emittedRecords(run, start.runId, outcome.emission),
    });
    outcome.outputIds = inserted.map((row) => row.id);
    await finishRun(tx, run, start, outcome);
    await tx.query(sql.ADVANCE_WATERMARK, [
      ws,
      def.name,
      entity,
      outcome.read?.watermark,
      sourceHash(def),
      start.runId,
    ]);
    await succeed(tx, job, ctx.owner, start.runId);
    if (outcome.read?.truncated) {
      await enqueueDerivation(tx, {
        workspaceId: ws,
        derivation: def.name,
        entity,
        reason: { on: "continuation", trigger: null },
      });
    }
  });
}

/** Why a run must be skipped: a source that may not be empty read nothing. */
function emptySource(def: DerivationDef, read: ReadResult): string | null {
  const empty = read.sources.find(
    (source) => source.records.length === 0 && !def.sources[source.name]?.allow_empty,
  );
  return empty ? empty.name : null;
}

export function deriveHandler(options: DeriveOptions): JobHandler {
  return async (job, ctx) => {
    const ws = job.workspace_id;
    const name = String(job.payload.derivation);
    const entity = String(job.payload.entity);
    const reasons = (job.payload.reasons as TriggerReason[] | undefined) ?? [];
    const catalog = await requireCatalog(ctx.db, ws);
    const entry = catalog.index.derivations.get(name);
    if (!entry) {
      await ctx.db.transaction((tx) =>
        endJob(tx, job, ctx.owner, {
          state: "dead",
          error: `derivation ${name} is not listed in the package`,
        }),
      );
      return;
    }
    const run: RunContext = { job, ctx, catalog, def: entry.def, entity };
    const start = await startRun(run, reasons);
    const outcome: Outcome = {
      status: "failed",
      failure: null,
      divergence: [],
      usage: NO_USAGE,
      outputIds: [],
    };
    try {
      outcome.read = await readSources(ctx.db, {
        workspaceId: ws,
        entity,
        def: entry.def,
        watermark: start.watermark,
        checkpoint: start.checkpoint,
      });
      outcome.basis = await activeHeads(ctx.db, ws, entity, entry.def.emit);
      if (emptySource(entry.def, outcome.read) !== null) {
        outcome.status = "skipped";
        await ctx.db.transaction(async (tx) => {
          await fence(tx, job, ctx.owner);
          await finishRun(tx, run, start, outcome);
          await succeed(tx, job, ctx.owner, null);
        });
        return;
      }
      const alias = modelAlias(entry.def, catalog.index);
      if (!alias) throw new RunFailure("internal", "the derivation has no model alias");
      const { outputs, usage } = await runTasks({
        def: entry.def,
        alias,
        models: options.models(catalog),
        entity,
        read: outcome.read,
        startedAt: start.startedAt,
      });
      outcome.usage = usage;
      outcome.status = "succeeded";
      await commit(run, start, outcome, outputs[entry.def.emit.from]);
    } catch (error) {
      if (!(error instanceof RunFailure)) {
        if (error instanceof LeaseLostError) throw error;
        ctx.log.error({ err: error, run: start.runId }, "derivation run failed unexpectedly");
      }
      const failure =
        error instanceof RunFailure
          ? error
          : new RunFailure("internal", "an unexpected error stopped the run");
      outcome.status = "failed";
      outcome.failure = failure;
      outcome.outputIds = [];
      if (failure.usage) outcome.usage = failure.usage;
      await ctx.db.transaction(async (tx) => {
        await fence(tx, job, ctx.owner);
        await finishRun(tx, run, start, outcome);
        if (!isTransient(failure.kind)) {
          await endJob(tx, job, ctx.owner, {
            state: failure.kind === "cancelled" ? "cancelled" : "dead",
            error: `${failure.kind}: ${failure.message}`,
          });
        }
      });
      // Transient: the runner schedules a retry with backoff (dead after max_attempts).
      if (isTransient(failure.kind)) throw new Error(`${failure.kind}: ${failure.message}`);
    }
  };
}
