// What an erasure clears beyond the records themselves, so that no table keeps an erased record's
// id or text, nor the name of an entity left with no record, anywhere but in the hash-only _system
// audit (GDPR Art. 17). Runs inside the erasure's transaction, under the workspace's seq lock,
// after the records went; each owner forgets what it holds, one set-based statement a step,
// scoped by workspace:
// - a forgotten entity (the erased one, or one whose last record went): its derivation state and
//   runs (src/derivations/erasure.ts), its replay cursors (src/records/erasure.ts) and the entity
//   in its derivation jobs, whatever their state;
// - enrichment jobs, finished ones included, forget the erased ids and any error text
//   (src/worker/payloads.ts).
import { forgetDerivationJobs, forgetDerivationState } from "../derivations/index.js";
import type { Queryable } from "../platform/db/index.js";
import { ENRICH_JOB, forgetCursors } from "../records/index.js";
import { forgetJobRecords } from "../worker/index.js";
import * as sql from "./sql.js";

/** What replaces an error text or audit detail that could name an erased record. */
export const ERROR_GONE = "error text removed: it could name records an erasure removed";

/** Of these entities, those that hold no record any more. */
export async function emptiedEntities(tx: Queryable, workspaceId: string, entities: string[]) {
  if (entities.length === 0) return [];
  const { rows } = await tx.query<{ entity: string }>(sql.EMPTIED_ENTITIES, [workspaceId, entities]);
  return rows.map((row) => row.entity);
}

/** Removes the names of entities that are gone from derivation state, runs, cursors and jobs. */
export async function forgetEntities(tx: Queryable, workspaceId: string, entities: string[]) {
  await forgetDerivationState(tx, workspaceId, entities);
  await forgetCursors(tx, workspaceId, entities);
  await forgetDerivationJobs(tx, workspaceId, entities);
}

/** Enrichment jobs forget the erased ids; a queued one left with none is cancelled. */
export async function forgetEnrichment(
  tx: Queryable,
  workspaceId: string,
  removed: { ids: string[]; createdAt: string[] },
) {
  if (removed.ids.length === 0) return;
  await forgetJobRecords(tx, {
    workspaceId,
    kind: ENRICH_JOB,
    ids: removed.ids,
    createdAt: [...new Set(removed.createdAt)],
    error: ERROR_GONE,
  });
}
