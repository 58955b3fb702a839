// The durable job queue's write side: enqueue inside the caller's transaction.
import type { Queryable } from "../platform/db/index.js";

export interface EnqueueRequest {
  workspaceId: string;
  kind: string;
  payload: Record<string, unknown>;
  /** Live work with the same key is not queued twice: the queued job is returned instead. */
  coalesceKey?: string;
}

export interface EnqueueResult {
  jobId: string;
  coalesced: boolean;
  runAfter: Date;
}

const INSERT_JOB = `
  INSERT INTO jobs (workspace_id, kind, payload, coalesce_key) VALUES ($1, $2, $3, $4)
  ON CONFLICT (workspace_id, coalesce_key) WHERE coalesce_key IS NOT NULL AND state = 'queued' DO NOTHING
  RETURNING id, run_after`;

const QUEUED_BY_KEY = `
  SELECT id, run_after FROM jobs WHERE workspace_id = $1 AND coalesce_key = $2 AND state = 'queued'`;

export async function enqueue(tx: Queryable, request: EnqueueRequest): Promise<EnqueueResult> {
  const { rows } = await tx.query<{ id: string; run_after: Date }>(INSERT_JOB, [
    request.workspaceId,
    request.kind,
    JSON.stringify(request.payload),
    request.coalesceKey ?? null,
  ]);
  const inserted = rows[0];
  if (inserted) return { jobId: inserted.id, coalesced: false, runAfter: inserted.run_after };
  const existing = (
    await tx.query<{ id: string; run_after: Date }>(QUEUED_BY_KEY, [request.workspaceId, request.coalesceKey])
  ).rows[0];
  if (!existing) throw new Error("coalesced job vanished while enqueueing");
  return { jobId: existing.id, coalesced: true, runAfter: existing.run_after };
}
