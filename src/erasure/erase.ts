// Erasure (spec "Erasure"; CONVENTIONS.md "Erasure and retention"): one transaction under the
// workspace's seq lock expands the derived_from closure, deletes the records (embeddings, search
// projection, access marks and artifact snapshots go with them), holds off derivation work,
// restores keyed predecessors and clears every other trace (traces.ts): pending and finished jobs,
// run audits, derivation state and cursors of entities left with no record, artifact uses. Then it
// writes a content-free _system audit. The external-index deletion job is queued after the commit;
// it also refreshes the planner statistics (statistics.ts). Irreversible.
import { forgetErased } from "../artifacts/index.js";
import { holdOffDerivations } from "../derivations/index.js";
import type { Db, Queryable } from "../platform/db/index.js";
import { sha256Hex } from "../platform/hash.js";
import { appendSystemRecord, countSearchable, lockSeq, uncountSearchable } from "../records/index.js";
import { enqueue } from "../worker/queue.js";
import { expandClosure } from "./closure.js";
import { INDEX_DELETE_JOB } from "./index-delete.js";
import * as sql from "./sql.js";
import {
  emptiedEntities,
  forgetEnrichment,
  forgetEntities,
  scrubRuns,
  stopRunningDerivations,
} from "./traces.js";

/** What one erasure removed: the ids (never written anywhere; the index-deletion job gets their count) and counts. */
export interface Removal {
  ids: string[];
  seeds: number;
  affectedEntities: number;
  headsRestored: number;
  jobsCancelled: number;
}

/** One erasure: its seeds (read under the lock), and the audit it writes (null: nothing to do). */
export interface ErasureTarget {
  seeds(tx: Queryable): Promise<string[]>;
  /** Set when a whole entity goes: it is forgotten even when none of its records was left. */
  entity?: string;
  audit(removal: Removal): { type: string; content: Record<string, unknown> } | null;
}

export interface ErasureResult {
  audit_id: string;
  deleted: number;
  affected_entities: number;
  index_delete_job_id: string;
}

interface Slot {
  entity: string;
  collection: string;
  key: string | null;
  status: string;
}

interface Removed extends Slot {
  /** created_at as text (sql.DELETE_RECORDS). */
  created_at: string;
}

/** The keyed slots the removed rows held, once each. */
function slotsOf(rows: Slot[]): Slot[] {
  const slots = new Map<string, Slot>();
  for (const row of rows) {
    if (row.key !== null) slots.set(JSON.stringify([row.entity, row.collection, row.key, row.status]), row);
  }
  return [...slots.values()];
}

async function remove(tx: Queryable, workspaceId: string, target: ErasureTarget, maxRecords: number) {
  const seeds = await target.seeds(tx);
  const ids = await expandClosure(tx, workspaceId, seeds, maxRecords);
  // Their share of the workspace's term statistics goes first (an enrichment of one commits first).
  await uncountSearchable(tx, workspaceId, ids, { current: true, lock: true });
  const { rows } =
    ids.length > 0 ? await tx.query<Removed>(sql.DELETE_RECORDS, [workspaceId, ids]) : { rows: [] };
  if (ids.length > 0) await tx.query(sql.DELETE_MARKS, [workspaceId, ids]);
  const entities = [...new Set(rows.map((row) => row.entity))];
  // An erased entity is held off even when nothing of it was left to delete.
  const held = target.entity === undefined ? entities : [...new Set([...entities, target.entity])];
  let jobsCancelled = await holdOffDerivations(tx, workspaceId, {
    entities: held,
    forgetEntity: target.entity,
  });
  jobsCancelled += await stopRunningDerivations(tx, workspaceId, held);
  // Held entities with no record left (the erased one among them) are forgotten by name; the
  // others keep their runs, which forget the erased ids.
  const forgotten = await emptiedEntities(tx, workspaceId, held);
  await forgetEntities(tx, workspaceId, forgotten);
  const gone = new Set(forgotten);
  await scrubRuns(
    tx,
    workspaceId,
    entities.filter((entity) => !gone.has(entity)),
    ids,
  );
  let headsRestored = 0;
  const slots = slotsOf(rows);
  if (slots.length > 0) {
    const dropped = await tx.query<Slot>(sql.DROP_HEADS, [workspaceId, JSON.stringify(slots)]);
    if (dropped.rows.length > 0) {
      const restored = await tx.query<{ record_id: string }>(sql.RESTORE_HEADS, [
        workspaceId,
        JSON.stringify(dropped.rows),
      ]);
      headsRestored = restored.rowCount;
      await countSearchable(
        tx,
        workspaceId,
        restored.rows.map((row) => row.record_id),
      );
    }
  }
  await forgetEnrichment(tx, workspaceId, { ids, createdAt: rows.map((row) => row.created_at) });
  await forgetErased(tx, workspaceId, { ids, entities: forgotten });
  return { ids, seeds: seeds.length, affectedEntities: entities.length, headsRestored, jobsCancelled };
}

/**
 * Runs one erasure. Returns null when the target's audit says there was nothing to do (nothing
 * is written then). A closure over maxRecords throws erase_too_large with nothing removed.
 */
export async function eraseTarget(
  db: Db,
  workspaceId: string,
  target: ErasureTarget,
  maxRecords: number,
): Promise<ErasureResult | null> {
  const done = await db.transaction(async (tx) => {
    await lockSeq(tx, workspaceId);
    const removal = await remove(tx, workspaceId, target, maxRecords);
    const audit = target.audit(removal);
    if (!audit) return null;
    const auditId = await appendSystemRecord(tx, workspaceId, { entity: AUDIT_ENTITY, ...audit });
    return { removal, auditId };
  });
  if (!done) return null;
  // No external index is configured: the job carries the count only, so no erased id outlives
  // the erasure's commit. An external index would need the ids here until its job ran.
  const job = await db.transaction((tx) =>
    enqueue(tx, { workspaceId, kind: INDEX_DELETE_JOB, payload: { records: done.removal.ids.length } }),
  );
  return {
    audit_id: done.auditId,
    deleted: done.removal.ids.length,
    affected_entities: done.removal.affectedEntities,
    index_delete_job_id: job.jobId,
  };
}

/** What an erasure would remove (POST /erase?dry_run=true). */
export interface ErasurePreview {
  dry_run: true;
  deleted: number;
  affected_entities: number;
  by_collection: Record<string, number>;
  /** Of deleted, the records pulled in through the derived_from closure rather than named. */
  derived: number;
}

/**
 * The erasure's seeds and closure, found as eraseTarget finds them (and refused as it refuses
 * them: erase_too_large), in a read-only transaction on one snapshot: nothing is removed, held
 * off, audited or queued, and writers are not held up (no seq lock).
 */
export async function previewTarget(
  db: Db,
  workspaceId: string,
  target: ErasureTarget,
  maxRecords: number,
): Promise<ErasurePreview> {
  return db.transaction(async (tx) => {
    await tx.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
    const seeds = await target.seeds(tx);
    const ids = await expandClosure(tx, workspaceId, seeds, maxRecords);
    const counts =
      ids.length > 0
        ? (
            await tx.query<{ affected_entities: number; by_collection: Record<string, number> }>(
              sql.CLOSURE_COUNTS,
              [workspaceId, ids],
            )
          ).rows[0]
        : undefined;
    return {
      dry_run: true,
      deleted: ids.length,
      affected_entities: counts?.affected_entities ?? 0,
      by_collection: counts?.by_collection ?? {},
      derived: ids.length - seeds.length,
    };
  });
}

/** Audits land on this entity: never the erased one, whose name must not survive. */
export const AUDIT_ENTITY = "workspace";

/** The counts every erasure audit carries. */
export function removalCounts(removal: Removal) {
  return {
    deleted: removal.ids.length,
    derived: removal.ids.length - removal.seeds,
    affected_entities: removal.affectedEntities,
    heads_restored: removal.headsRestored,
    derivation_jobs_cancelled: removal.jobsCancelled,
  };
}

/** One SHA-256 over the sorted lower-case ids: a request can be matched, its ids never read back. */
export function idsDigest(ids: string[]): string {
  return sha256Hex([...new Set(ids.map((id) => id.toLowerCase()))].sort().join("\n"));
}
