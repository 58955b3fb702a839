// Derivation jobs: one queue entry per (derivation, entity), durably coalesced, with trigger
// cooldowns measured from the last time a job was queued for that pair.
import type { Queryable } from "../platform/db/index.js";
import { type EnqueueResult, enqueue, mergeReasons } from "../worker/index.js";
import * as sql from "./sql.js";

/** Worker job kind of a derivation run. */
export const DERIVE_JOB = "derive";

/** Why a job was queued: the trigger that fired (or a request, or a run that left work behind). */
export interface TriggerReason {
  on: "accumulator" | "write" | "read" | "cron" | "manual" | "continuation";
  trigger: string | null;
}

/** One live job per (derivation, entity); derivation names hold no colon. */
export function deriveJobKey(derivation: string, entity: string): string {
  return `derive:${derivation}:${entity}`;
}

export interface DeriveRequest {
  workspaceId: string;
  derivation: string;
  entity: string;
  reason: TriggerReason;
  /** Seconds between two queues for the pair; a job asked for sooner waits until then. */
  cooldownS?: number;
}

/** The pair's state row, created when missing and locked until the caller's transaction ends. */
export interface DerivationState {
  watermark_seq: number;
  source_hash: string | null;
  generation: number;
  last_queued_at: Date | null;
  last_run_id: string | null;
}

export async function lockState(
  tx: Queryable,
  workspaceId: string,
  derivation: string,
  entity: string,
): Promise<DerivationState> {
  const { rows } = await tx.query<DerivationState>(sql.LOCK_OR_CREATE_STATE, [
    workspaceId,
    derivation,
    entity,
  ]);
  return rows[0] as DerivationState;
}

/** Queues (or joins) the pair's job inside the caller's transaction. */
export async function enqueueDerivation(tx: Queryable, request: DeriveRequest): Promise<EnqueueResult> {
  const { workspaceId, derivation, entity } = request;
  const state = await lockState(tx, workspaceId, derivation, entity);
  const now = Date.now();
  const last = state.last_queued_at?.getTime();
  const cooldownMs = (request.cooldownS ?? 0) * 1000;
  const runAfter = new Date(last !== undefined && cooldownMs > 0 ? Math.max(now, last + cooldownMs) : now);
  const result = await enqueue(tx, {
    workspaceId,
    kind: DERIVE_JOB,
    payload: { derivation, entity, reasons: [request.reason] },
    coalesceKey: deriveJobKey(derivation, entity),
    runAfter,
  });
  if (result.coalesced) {
    await mergeReasons(tx, { workspaceId, jobId: result.jobId, reasons: [request.reason] });
  } else {
    await tx.query(sql.SET_QUEUED_AT, [workspaceId, derivation, entity, runAfter]);
  }
  return result;
}
