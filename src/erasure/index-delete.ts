// The external-index deletion job an erasure queues after its commit. Engram's own projection
// (full-text vectors and embeddings) is removed in the erasure's transaction; this job is where
// an external index would drop the ids. None is configured, so the job carries only the count
// (no erased id outlives the erasure's commit). A job queued by an older version still carries
// the ids: it keeps only their count once run. Before it completes it refreshes the planner
// statistics, which still sample what the erasure removed (statistics.ts); a failed refresh is
// retried with the job.
import { fence, type JobHandler, keepRecordCount, succeed } from "../worker/index.js";
import { refreshStatistics } from "./statistics.js";

export const INDEX_DELETE_JOB = "index_delete";

export const indexDeleteHandler: JobHandler = async (job, ctx) => {
  // Queued after the erasure's commit: a refresh begun after the job was queued serves it.
  await refreshStatistics(ctx.db, job.created_at);
  await ctx.db.transaction(async (tx) => {
    await fence(tx, job, ctx.owner);
    await keepRecordCount(tx, job);
    await succeed(tx, job, ctx.owner);
  });
};
