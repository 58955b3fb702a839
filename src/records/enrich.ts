// The enrichment job: runs a batch's required processors (embedding, score, JSON) and makes each
// record ready in the same transaction that writes its search projection (full-text vector and
// embedding), so readiness and searchability flip together. Model calls happen outside
// transactions; every commit is fenced on the job's lease, so a worker that lost its lease
// writes nothing and no record is enriched twice.
import {
  type CollectionDef,
  type InstalledCatalog,
  type ProcessorDef,
  requireCatalog,
} from "../catalog/index.js";
import { ModelOutputError, type Models } from "../models/index.js";
import type { Db, Queryable } from "../platform/db/index.js";
import { yieldTurn } from "../platform/event-loop.js";
import { fence, type Job, type JobContext, type JobHandler, succeed } from "../worker/index.js";
import { canDeferVectors } from "./embedding-index.js";
import { ENRICH_JOB } from "./insert.js";
import { searchDocument, textConfig } from "./projection.js";
import { type ReadyRecord, recordsReady } from "./ready-hooks.js";
import * as sql from "./sql.js";
import { countSearchable } from "./text-stats.js";
import { storeEmbeddings } from "./vector-leads.js";

export interface EnrichOptions {
  /** The models of a catalog (cached by the caller). */
  models(catalog: InstalledCatalog): Models;
  /** ENRICH_LLM_BATCH and ENRICH_EMBED_BATCH. */
  llmBatch: number;
  embedBatch: number;
}

export interface PendingRow {
  id: string;
  collection: string;
  collection_version: number;
  text: string;
  content: Record<string, unknown>;
  scores: Record<string, number>;
  annotations: Record<string, unknown>;
  spaces: string[];
}

export interface Work {
  row: PendingRow;
  collection: CollectionDef;
  processors: ProcessorDef[];
  textConfig: string;
}

export interface Results {
  scores: Record<string, number>;
  annotations: Record<string, unknown>;
  embeddings: { space: string; vector: number[] }[];
}

/** What a model reads of a record: its text, else its content. */
function modelText(row: PendingRow): string {
  return row.text.trim() === "" ? JSON.stringify(row.content) : row.text;
}

function spaceOf(catalog: InstalledCatalog, processor: ProcessorDef): string {
  const alias = catalog.index.models.def.aliases[processor.model];
  return alias?.kind === "embedding" ? alias.space : processor.model;
}

function isDone(work: Work, results: Results, catalog: InstalledCatalog, processor: ProcessorDef): boolean {
  switch (processor.kind) {
    case "embedding": {
      const space = spaceOf(catalog, processor);
      return work.row.spaces.includes(space) || results.embeddings.some((e) => e.space === space);
    }
    case "score":
      return processor.name in work.row.scores || processor.name in results.scores;
    case "json":
      return processor.name in work.row.annotations || processor.name in results.annotations;
  }
}

export function plan(rows: PendingRow[], catalog: InstalledCatalog): Work[] {
  const work: Work[] = [];
  for (const row of rows) {
    const entry = catalog.index.collections.get(`${row.collection}@${row.collection_version}`);
    // A collection version the package no longer lists: its processors are unknown, so the row
    // stays unready until a package lists it again (a backfill can then finish it).
    if (!entry) continue;
    const processors = entry.def.required_processors
      .map((name) => catalog.index.processors.get(name)?.def)
      .filter((p): p is ProcessorDef => p !== undefined);
    work.push({ row, collection: entry.def, processors, textConfig: textConfig(catalog, entry.def) });
  }
  return work;
}

/** Calls the models for one sub-batch; output failures fall back to the processor's default. */
export async function compute(
  chunk: Work[],
  catalog: InstalledCatalog,
  models: Models,
): Promise<Map<string, Results>> {
  const results = new Map<string, Results>(
    chunk.map((w) => [w.row.id, { scores: {}, annotations: {}, embeddings: [] }]),
  );
  const processors = new Map<string, ProcessorDef>();
  for (const w of chunk) for (const p of w.processors) processors.set(p.name, p);
  for (const processor of processors.values()) {
    const todo = chunk.filter(
      (w) =>
        w.processors.includes(processor) && !isDone(w, results.get(w.row.id) as Results, catalog, processor),
    );
    if (todo.length === 0) continue;
    if (processor.kind === "embedding") {
      const vectors = await models.embed(
        processor.model,
        todo.map((w) => modelText(w.row)),
      );
      const space = spaceOf(catalog, processor);
      todo.forEach((w, i) => {
        results.get(w.row.id)?.embeddings.push({ space, vector: vectors[i] as number[] });
      });
      continue;
    }
    for (const w of todo) {
      const out = results.get(w.row.id) as Results;
      if (processor.kind === "score") {
        out.scores[processor.name] = await models
          .score(processor.model, {
            prompt: processor.prompt ?? "",
            text: modelText(w.row),
            scale: processor.scale ?? [0, 1],
          })
          .catch((error) => {
            if (error instanceof ModelOutputError) return processor.default as number;
            throw error;
          });
      } else {
        out.annotations[processor.name] = await models
          .json(processor.model, {
            task: processor.name,
            prompt: processor.prompt ?? "",
            input: { text: w.row.text, content: w.row.content },
            schema: processor.output_schema ?? {},
          })
          .then((result) => result.value)
          .catch((error) => {
            if (error instanceof ModelOutputError && processor.default !== undefined)
              return processor.default;
            throw error;
          });
      }
    }
  }
  return results;
}

/**
 * Writes a sub-batch's results without overwriting what a record already has. With readiness,
 * a record whose required processors are now all done becomes ready with its full-text vector
 * (enrichment); without, results are merged and readiness is left alone (backfill). Returns how
 * many records received a new result.
 */
export async function writeResults(
  tx: Queryable,
  db: Db,
  write: {
    workspaceId: string;
    chunk: Work[];
    results: Map<string, Results>;
    catalog: InstalledCatalog;
    readiness: boolean;
    /** Store embeddings deferred (see canDeferVectors). */
    deferVectors: boolean;
    /** Fire the ready triggers (false: the records were ready before, when their triggers fired). */
    triggers?: boolean;
  },
): Promise<number> {
  const { chunk, results, catalog } = write;
  const updates = chunk.map((w) => {
    const r = results.get(w.row.id) as Results;
    const complete = w.processors.every((p) => isDone(w, r, catalog, p));
    return {
      id: w.row.id,
      scores: r.scores,
      annotations: r.annotations,
      ready: complete,
      config: w.textConfig,
      document: complete ? searchDocument(w.row.text, w.row.content, w.collection) : null,
      changed: Object.keys(r.scores).length + Object.keys(r.annotations).length + r.embeddings.length > 0,
    };
  });
  const embeddings = chunk.flatMap((w) =>
    (results.get(w.row.id) as Results).embeddings.map((e) => ({ id: w.row.id, ...e })),
  );
  if (embeddings.length > 0)
    await storeEmbeddings(tx, {
      db,
      workspaceId: write.workspaceId,
      embeddings,
      deferVectors: write.deferVectors,
    });
  const { rows: applied } = await tx.query<ReadyRecord & { ready: boolean }>(
    write.readiness ? sql.APPLY_ENRICHMENT : sql.MERGE_RESULTS,
    [write.workspaceId, JSON.stringify(updates), updates.map((u) => u.id)],
  );
  if (write.readiness) {
    await countSearchable(
      tx,
      write.workspaceId,
      applied.filter((row) => row.ready).map((row) => row.id),
    );
    await recordsReady(tx, {
      workspaceId: write.workspaceId,
      catalog,
      records: applied
        .filter((row) => row.ready && write.triggers !== false)
        .map((row) => ({
          id: row.id,
          seq: Number(row.seq),
          entity: row.entity,
          collection: row.collection,
          run_id: row.run_id,
        })),
    });
  }
  return updates.filter((u) => u.changed).length;
}

/**
 * Sub-batches of work, letting timers and I/O run before each one. PGlite executes SQL
 * synchronously on this thread and its awaits resolve as microtasks, so back-to-back batches
 * would otherwise hold off HTTP requests and lease heartbeats until the whole job is done (a
 * search waited 18 s behind an enrichment drain).
 */
export async function* subBatches<T>(items: T[], size: number): AsyncGenerator<T[]> {
  for (let i = 0; i < items.length; i += size) {
    await yieldTurn();
    yield items.slice(i, i + size);
  }
}

/** Whether enrichment jobs wait in the queue: a backlog, whose vectors are indexed in bulk. */
export async function enrichmentWaits(q: Queryable): Promise<boolean> {
  return Boolean((await q.query<{ queued: boolean }>(sql.JOBS_QUEUED, [ENRICH_JOB])).rows[0]?.queued);
}

/** How long computed results may wait to be written with the next sub-batch's. */
const HOLD_MS = 200;

export function enrichHandler(options: EnrichOptions): JobHandler {
  return async (job: Job, ctx: JobContext) => {
    const ids = (job.payload.record_ids as string[] | undefined) ?? [];
    // An import re-embedding records that were ready where they were exported: no triggers.
    const triggers = job.payload.triggers !== false;
    const catalog = await requireCatalog(ctx.db, job.workspace_id);
    const models = options.models(catalog);
    const { rows } = await ctx.db.query<PendingRow>(sql.PENDING_ENRICHMENT, [job.workspace_id, ids]);
    const work = plan(rows, catalog);
    const usesLlm = work.some((w) => w.processors.some((p) => p.kind !== "embedding"));
    const size = usesLlm ? Math.min(options.llmBatch, options.embedBatch) : options.embedBatch;
    // Results are held and written together up to `embedBatch` records while the models answer
    // fast: a write is a transaction of a dozen statements (fence, embeddings, records, ready
    // hooks), which for sub-batches of 16 cost a server drain more than the models did. Slow
    // models (an LLM's seconds per record) still have each sub-batch written as it is done.
    let held = { work: [] as Work[], results: new Map<string, Results>(), since: 0 };
    // The last write also marks the job succeeded: one commit less per job.
    const write = async (last = false) => {
      const { work: chunk, results } = held;
      held = { work: [], results: new Map(), since: 0 };
      if (chunk.length === 0) {
        if (last) await ctx.db.transaction((tx) => succeed(tx, job, ctx.owner));
        return;
      }
      // Deferred while more enrichment waits: a backlog's vectors are indexed in bulk.
      const deferVectors = canDeferVectors(ctx.db) && (await enrichmentWaits(ctx.db));
      await ctx.db.transaction(async (tx) => {
        await fence(tx, job, ctx.owner);
        await writeResults(tx, ctx.db, {
          workspaceId: job.workspace_id,
          chunk,
          results,
          catalog,
          readiness: true,
          deferVectors,
          triggers,
        });
        if (last) await succeed(tx, job, ctx.owner);
      });
      ctx.db.noteWrites(chunk.length);
    };
    for await (const chunk of subBatches(work, size)) {
      // Stopping: what is done is written, the lease is handed back and the next worker resumes
      // from what is stored.
      if (ctx.stopping()) return write();
      if (held.work.length === 0) held.since = performance.now();
      // A model failure keeps the sub-batches done before it.
      const results = await compute(chunk, catalog, models).catch(async (error) => {
        await write();
        throw error;
      });
      held.work.push(...chunk);
      for (const [id, result] of results) held.results.set(id, result);
      if (held.work.length + size > options.embedBatch || performance.now() - held.since >= HOLD_MS)
        await write();
    }
    await write(true);
  };
}
