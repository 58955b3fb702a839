// POST /reindex: rebuilds the search projection (full-text vectors) of ready records after a
// seq, or of all of them (reset), through worker jobs. Stored records are never rewritten; an
// audit record lands in _system.
import { randomUUID } from "node:crypto";
import { requireCatalog } from "../catalog/index.js";
import type { Db, Queryable } from "../platform/db/index.js";
import { AppError } from "../platform/errors.js";
import { hashJson } from "../platform/hash.js";
import type { Workspace } from "../platform/workspace.js";
import {
  enqueue,
  fence,
  type Job,
  type JobContext,
  type JobHandler,
  openJobOfKind,
  refuseWhenBacklogged,
  succeed,
} from "../worker/index.js";
import { subBatches } from "./enrich.js";
import { searchDocument, textConfig } from "./projection.js";
import * as sql from "./sql.js";
import { countSearchable, uncountSearchable } from "./text-stats.js";
import { SYSTEM_COLLECTION } from "./validate.js";

export const REINDEX_JOB = "reindex";

// Records per reindex job: large enough to keep jobs few (a workspace's backlog is bounded).
const RECORDS_PER_JOB = 1000;
// Records per transaction within a job: each commits quickly and lets the event loop turn, so a
// reindex on embedded storage never holds another workspace's request for a whole job. A job
// that dies part way runs again from its start: rebuilding a projection is idempotent.
const RECORDS_PER_COMMIT = 100;

export interface ReindexRequest {
  since_seq?: number;
  reset?: boolean;
  confirm?: boolean;
}

/** Appends a content-only audit row to _system, with its own seq. */
export async function appendSystemRecord(
  tx: Queryable,
  workspaceId: string,
  audit: { entity: string; type: string; content: Record<string, unknown> },
): Promise<string> {
  const { rows } = await tx.query<{ last_seq: number }>(sql.LOCK_SEQ, [workspaceId]);
  await tx.query(sql.ADVANCE_SEQ, [workspaceId, 1]);
  const id = randomUUID();
  await tx.query(sql.INSERT_SYSTEM_RECORD, [
    workspaceId,
    id,
    (rows[0]?.last_seq ?? 0) + 1,
    SYSTEM_COLLECTION,
    audit.entity,
    audit.type,
    JSON.stringify(audit.content),
    hashJson(audit.content),
  ]);
  return id;
}

export async function startReindex(
  db: Db,
  workspace: Workspace,
  request: ReindexRequest,
  testDatabase: boolean,
) {
  const reset = request.reset === true;
  const since = request.since_seq;
  if (reset === (since !== undefined)) {
    throw new AppError("reindex_request", "name exactly one of since_seq or reset (true)", {
      errors: [{ path: "", message: "exactly one of since_seq or reset (true)" }],
    });
  }
  if (reset && !testDatabase && request.confirm !== true) {
    throw new AppError("reindex_request", "reset rebuilds every record's projection: send confirm true", {
      errors: [{ path: "confirm", message: "must be true for reset outside a test database" }],
    });
  }
  await requireCatalog(db, workspace.id);
  const mode = reset ? "reset" : "since_seq";
  return db.transaction(async (tx) => {
    // Taken first, as by every write: two reindex requests of a workspace check one after the other.
    await tx.query(sql.LOCK_SEQ, [workspace.id]);
    await refuseWhenBacklogged(tx, workspace.id);
    const running = await openJobOfKind(tx, workspace.id, REINDEX_JOB);
    if (running) {
      throw new AppError(
        "reindex_running",
        `this workspace's reindex is still ${running.state} (job ${running.id}); ask again once its jobs have ended`,
        { job_id: running.id },
      );
    }
    const { rows: ranges } = await tx.query<{ from_seq: number; to_seq: number; count: number }>(
      sql.REINDEX_RANGES,
      [workspace.id, reset ? 0 : since, SYSTEM_COLLECTION, RECORDS_PER_JOB],
    );
    for (const range of ranges) {
      await enqueue(tx, {
        workspaceId: workspace.id,
        kind: REINDEX_JOB,
        payload: { from_seq: range.from_seq, to_seq: range.to_seq },
      });
    }
    const targetCount = ranges.reduce((sum, range) => sum + range.count, 0);
    await appendSystemRecord(tx, workspace.id, {
      entity: "workspace",
      type: "reindex_audit",
      content: {
        mode,
        since_seq: reset ? 0 : since,
        target_count: targetCount,
        enqueued_jobs: ranges.length,
      },
    });
    return { mode, target_count: targetCount, enqueued_jobs: ranges.length };
  });
}

export const reindexHandler: JobHandler = async (job: Job, ctx: JobContext) => {
  const catalog = await requireCatalog(ctx.db, job.workspace_id);
  const { rows } = await ctx.db.query<{
    id: string;
    collection: string;
    collection_version: number;
    text: string;
    content: Record<string, unknown>;
  }>(sql.REINDEX_ROWS, [job.workspace_id, job.payload.from_seq, job.payload.to_seq, SYSTEM_COLLECTION]);
  const updates = rows.flatMap((row) => {
    const collection = catalog.index.collections.get(`${row.collection}@${row.collection_version}`)?.def;
    // A version the package no longer lists keeps its projection as it is.
    if (!collection) return [];
    return [
      {
        id: row.id,
        config: textConfig(catalog, collection),
        document: searchDocument(row.text, row.content, collection),
      },
    ];
  });
  for await (const chunk of subBatches(updates, RECORDS_PER_COMMIT)) {
    await ctx.db.transaction(async (tx) => {
      await fence(tx, job, ctx.owner);
      const ids = chunk.map((u) => u.id);
      // The seq lock keeps writes from moving these records' heads between uncount and count.
      await tx.query(sql.LOCK_SEQ, [job.workspace_id]);
      await uncountSearchable(tx, job.workspace_id, ids, { current: true });
      await tx.query(sql.APPLY_SEARCH_TEXT, [job.workspace_id, JSON.stringify(chunk), ids]);
      await countSearchable(tx, job.workspace_id, ids);
    });
  }
  await ctx.db.transaction(async (tx) => {
    await fence(tx, job, ctx.owner);
    await succeed(tx, job, ctx.owner);
  });
};
