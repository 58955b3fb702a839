// What an erasure clears beyond the records themselves, so that no table keeps an erased record's
// id or text, nor the name of an entity left with no record, anywhere but in the hash-only _system
// audit (GDPR Art. 17). Runs inside the erasure's transaction, under the workspace's seq lock,
// after the records went; each step is one set-based statement scoped by workspace.
//
// - Derivation runs in flight for a held entity: their job is cancelled and its lease taken, so
//   the run's later transactions fail their fence (src/worker/queue.ts) and write nothing, not
//   even its read receipt; the run row ends failed/cancelled here. The derivation module's own
//   hold-off (generation bump, queued jobs cancelled) has run before and stays in force.
// - A forgotten entity (the erased one, or one whose last record went): its derivation state,
//   runs and cursors are deleted, and its derivation jobs, whatever their state, lose the entity
//   (payload, coalesce key, run id, error text). Deleting the state is safe for the generation
//   fence because no run of the entity is left in flight to compare against it (see above).
// - Runs of entities that keep records forget the erased ids (scrubbed, not deleted: their
//   surviving output names them as its run, which a derivation's own-output rule relies on).
// - Enrichment jobs, finished ones included, forget the erased ids and any error text.
import { DERIVE_JOB } from "../derivations/index.js";
import type { Queryable } from "../platform/db/index.js";
import { ENRICH_JOB } from "../records/index.js";
import * as sql from "./sql.js";

/** The error text a held-off derivation job ends with (tests look for "erasure"). */
export const HELD_OFF = "cancelled: an erasure held off this entity's derivation work";
const RUN_HELD_OFF = "an erasure held this run off while it was working; nothing was written";
const ENTITY_GONE = "cancelled: an erasure removed this job's entity";
const ERROR_GONE = "error text removed: it could name records an erasure removed";

/** Cancels the derivation jobs running for these entities; returns how many. */
export async function stopRunningDerivations(tx: Queryable, workspaceId: string, entities: string[]) {
  if (entities.length === 0) return 0;
  const { rows } = await tx.query<{ id: string }>(sql.STOP_RUNNING_DERIVATIONS, [
    workspaceId,
    DERIVE_JOB,
    entities,
    HELD_OFF,
  ]);
  if (rows.length > 0) {
    await tx.query(sql.CANCEL_STOPPED_RUNS, [workspaceId, rows.map((row) => row.id), RUN_HELD_OFF]);
  }
  return rows.length;
}

/** Of these entities, those that hold no record any more. */
export async function emptiedEntities(tx: Queryable, workspaceId: string, entities: string[]) {
  if (entities.length === 0) return [];
  const { rows } = await tx.query<{ entity: string }>(sql.EMPTIED_ENTITIES, [workspaceId, entities]);
  return rows.map((row) => row.entity);
}

/** Removes the names of entities that are gone from derivation state, runs, cursors and jobs. */
export async function forgetEntities(tx: Queryable, workspaceId: string, entities: string[]) {
  if (entities.length === 0) return;
  await tx.query(sql.FORGET_DERIVATION_STATE, [workspaceId, entities]);
  await tx.query(sql.FORGET_RUNS, [workspaceId, entities]);
  await tx.query(sql.FORGET_CURSORS, [workspaceId, entities]);
  await tx.query(sql.FORGET_DERIVATION_JOBS, [workspaceId, DERIVE_JOB, entities, ENTITY_GONE]);
}

/** The run audits of these (surviving) entities forget the erased ids. */
export async function scrubRuns(tx: Queryable, workspaceId: string, entities: string[], ids: string[]) {
  if (entities.length === 0 || ids.length === 0) return;
  await tx.query(sql.SCRUB_RUNS, [workspaceId, entities, lower(ids), ERROR_GONE]);
}

/** Enrichment jobs forget the erased ids; a queued one left with none is cancelled. */
export async function forgetEnrichment(
  tx: Queryable,
  workspaceId: string,
  removed: { ids: string[]; createdAt: string[] },
) {
  if (removed.ids.length === 0) return;
  await tx.query(sql.FORGET_ENRICHMENT, [
    workspaceId,
    ENRICH_JOB,
    lower(removed.ids),
    [...new Set(removed.createdAt)],
    ERROR_GONE,
  ]);
  await tx.query(sql.CANCEL_EMPTY_ENRICHMENT, [workspaceId, ENRICH_JOB]);
}

function lower(ids: string[]): string[] {
  return ids.map((id) => id.toLowerCase());
}
