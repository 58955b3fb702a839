// Backfills: run one enrichment processor over the stored records of one collection version,
// BACKFILL_BATCH records per pass, never overwriting an existing result. States (spec):
// queued → live → done (no more records, or max_rows scanned) | cancelled (at a batch
// boundary) | failed (the target became impossible, e.g. the processor was removed).
import { type InstalledCatalog, type ProcessorDef, requireCatalog } from "../catalog/index.js";
import type { Db, Queryable } from "../platform/db/index.js";
import { AppError, validationError } from "../platform/errors.js";
import type { Workspace } from "../platform/workspace.js";
import {
  enqueue,
  fence,
  type Job,
  type JobContext,
  type JobHandler,
  refuseWhenBacklogged,
  succeed,
} from "../worker/index.js";
import { canDeferVectors } from "./embedding-index.js";
import { compute, type EnrichOptions, type PendingRow, plan, subBatches, writeResults } from "./enrich.js";
import * as sql from "./sql.js";

export const BACKFILL_JOB = "backfill";

export interface BackfillRequest {
  collection: string;
  version: number;
  processor: string;
  max_rows?: number;
}

export interface BackfillHandle {
  id: string;
  state: "queued" | "live" | "done" | "cancelled" | "failed";
  cursor_seq: number;
  scanned: number;
  annotated: number;
  last_error: string | null;
  collection: string;
  version: number;
  processor: string;
  max_rows: number | null;
  cancel_requested: boolean;
  job_id: string | null;
  created_at: Date;
  updated_at: Date;
}

/** Why a target cannot be backfilled under this catalog, or undefined when it can. */
function targetProblem(
  catalog: InstalledCatalog,
  target: Pick<BackfillRequest, "collection" | "version" | "processor">,
): string | undefined {
  if (!catalog.index.collections.has(`${target.collection}@${target.version}`)) {
    return `collection ${target.collection}@${target.version} is not in the installed package`;
  }
  const processor = catalog.index.processors.get(target.processor)?.def;
  if (!processor) return `no enrichment processor "${target.processor}" in the installed package`;
  if (!processor.input.collections.includes(target.collection)) {
    return `processor "${target.processor}" does not take collection ${target.collection} as input`;
  }
  return undefined;
}

export async function startBackfill(
  db: Db,
  workspace: Workspace,
  request: BackfillRequest,
): Promise<BackfillHandle> {
  const catalog = await requireCatalog(db, workspace.id);
  const problem = targetProblem(catalog, request);
  if (problem) throw validationError(problem, [{ path: "", message: problem }]);
  return db.transaction(async (tx) => {
    await refuseWhenBacklogged(tx, workspace.id);
    const { rows: previous } = await tx.query<{ cursor_seq: number }>(sql.LAST_SLICE_END, [
      workspace.id,
      request.collection,
      request.version,
      request.processor,
    ]);
    const { rows } = await tx.query<BackfillHandle>(sql.INSERT_BACKFILL, [
      workspace.id,
      request.collection,
      request.version,
      request.processor,
      request.max_rows ?? null,
      previous[0]?.cursor_seq ?? 0,
    ]);
    const handle = rows[0];
    if (!handle) {
      throw new AppError(
        "backfill_exists",
        `a backfill of ${request.processor} over ${request.collection}@${request.version} is already live`,
      );
    }
    return { ...handle, job_id: await queueBackfillJob(tx, workspace.id, handle.id) };
  });
}

/** Queues the backfill's job (one live job per backfill) and notes it on the backfill; returns its id. */
export async function queueBackfillJob(
  tx: Queryable,
  workspaceId: string,
  backfillId: string,
): Promise<string> {
  const job = await enqueue(tx, {
    workspaceId,
    kind: BACKFILL_JOB,
    payload: { backfill_id: backfillId },
    coalesceKey: `backfill:${backfillId}`,
  });
  await tx.query(sql.SET_BACKFILL_JOB, [workspaceId, backfillId, job.jobId]);
  return job.jobId;
}

export async function getBackfill(db: Queryable, workspaceId: string, id: string): Promise<BackfillHandle> {
  const row = /^[0-9a-f-]{36}$/i.test(id)
    ? (await db.query<BackfillHandle>(sql.GET_BACKFILL, [workspaceId, id])).rows[0]
    : undefined;
  if (!row) throw new AppError("not_found", `no backfill ${id}`);
  return row;
}

export async function listBackfills(db: Queryable, workspaceId: string): Promise<BackfillHandle[]> {
  return (await db.query<BackfillHandle>(sql.LIST_BACKFILLS, [workspaceId])).rows;
}

/** Asks a live backfill to stop at its next batch boundary; results already written are kept. */
export async function cancelBackfill(
  db: Queryable,
  workspaceId: string,
  id: string,
): Promise<BackfillHandle> {
  const handle = await getBackfill(db, workspaceId, id);
  await db.query(sql.REQUEST_CANCEL, [workspaceId, handle.id]);
  return getBackfill(db, workspaceId, handle.id);
}

async function advance(
  tx: Queryable,
  job: Job,
  handle: BackfillHandle,
  step: {
    state: BackfillHandle["state"];
    cursor: number;
    scanned: number;
    annotated: number;
    error?: string;
  },
): Promise<BackfillHandle> {
  const { rows } = await tx.query<BackfillHandle>(sql.ADVANCE_BACKFILL, [
    job.workspace_id,
    handle.id,
    step.state,
    step.cursor,
    step.scanned,
    step.annotated,
    step.error ?? null,
  ]);
  return rows[0] as BackfillHandle;
}

export function backfillHandler(options: EnrichOptions & { batch: number }): JobHandler {
  return async (job: Job, ctx: JobContext) => {
    const id = job.payload.backfill_id as string;
    let handle = await getBackfill(ctx.db, job.workspace_id, id);
    const finish = (step: Parameters<typeof advance>[3]) =>
      ctx.db.transaction(async (tx) => {
        await fence(tx, job, ctx.owner);
        handle = await advance(tx, job, handle, step);
        await succeed(tx, job, ctx.owner);
      });
    // A state change that moves nothing: the cursor stays where the last pass left it.
    const here = () => ({ cursor: handle.cursor_seq, scanned: 0, annotated: 0 });
    for (;;) {
      if (["done", "cancelled", "failed"].includes(handle.state)) {
        await ctx.db.transaction((tx) => succeed(tx, job, ctx.owner));
        return;
      }
      if (handle.cancel_requested) return finish({ state: "cancelled", ...here() });
      const catalog = await requireCatalog(ctx.db, job.workspace_id);
      const problem = targetProblem(catalog, handle);
      if (problem) return finish({ state: "failed", ...here(), error: problem });
      const remaining =
        handle.max_rows === null ? options.batch : Math.min(options.batch, handle.max_rows - handle.scanned);
      if (remaining <= 0) return finish({ state: "done", ...here() });
      if (ctx.stopping()) return;
      const { rows } = await ctx.db.query<PendingRow & { seq: number }>(sql.BACKFILL_BATCH, [
        job.workspace_id,
        handle.collection,
        handle.version,
        handle.cursor_seq,
        remaining,
      ]);
      if (rows.length === 0) return finish({ state: "done", ...here() });
      const processor = catalog.index.processors.get(handle.processor)?.def as ProcessorDef;
      const work = plan(rows, catalog).map((w) => ({ ...w, processors: [processor] }));
      let annotated = 0;
      for await (const chunk of subBatches(
        work,
        processor.kind === "embedding" ? options.embedBatch : options.llmBatch,
      )) {
        const results = await compute(chunk, catalog, options.models(catalog));
        annotated += await ctx.db.transaction(async (tx) => {
          await fence(tx, job, ctx.owner);
          return writeResults(tx, ctx.db, {
            workspaceId: job.workspace_id,
            chunk,
            results,
            catalog,
            readiness: false,
            // A backfill is a backlog of its own: its vectors are indexed in bulk.
            deferVectors: canDeferVectors(ctx.db),
          });
        });
      }
      const last = rows[rows.length - 1]?.seq as number;
      const scannedAll = handle.max_rows !== null && handle.scanned + rows.length >= handle.max_rows;
      handle = await ctx.db.transaction(async (tx) => {
        await fence(tx, job, ctx.owner);
        return advance(tx, job, handle, {
          state: scannedAll ? "done" : "live",
          cursor: last,
          scanned: rows.length,
          annotated,
        });
      });
      if (scannedAll) {
        await ctx.db.transaction((tx) => succeed(tx, job, ctx.owner));
        return;
      }
    }
  };
}
