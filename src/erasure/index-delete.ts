// The external-index deletion job an erasure queues after its commit. Engram's own projection
// (full-text vectors and embeddings) is removed in the erasure's transaction; this job is where
// an external index would drop the ids. None is configured, so it completes at once and keeps
// only the count, so that erased ids do not outlive the job's run.
import { fence, succeed } from "../worker/queue.js";
import type { JobHandler } from "../worker/runner.js";
import * as sql from "./sql.js";

export const INDEX_DELETE_JOB = "index_delete";

export const indexDeleteHandler: JobHandler = async (job, ctx) => {
  await ctx.db.transaction(async (tx) => {
    await fence(tx, job, ctx.owner);
    await tx.query(sql.CLEAR_INDEX_PAYLOAD, [job.workspace_id, job.id]);
    await succeed(tx, job, ctx.owner);
  });
};
