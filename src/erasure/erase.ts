// Erasure (docs/api.md, "Erasure and retention"): one transaction under the workspace's seq lock
// expands the derived_from closure, deletes the records (embeddings, search projection, access
// marks and artifact snapshots go with them), holds off derivation work, restores keyed
// predecessors and clears every other trace (traces.ts): pending and finished jobs, run audits,
// derivation state and cursors of entities left with no record, artifact uses. Each table's owner
// forgets what it holds (src/records/erasure.ts, src/derivations/erasure.ts,
// src/worker/payloads.ts, src/artifacts/erasure.ts); the order below is the erasure's. Then it
// writes a content-free _system audit. The external-index deletion job is queued after the commit;
// it also refreshes the planner statistics (statistics.ts). Irreversible.
import { forgetErased } from "../artifacts/index.js";
import { holdOffDerivations, scrubRuns, stopRunningDerivations } from "../derivations/index.js";
import type { Db, Queryable } from "../platform/db/index.js";
import { sha256Hex } from "../platform/hash.js";
import { appendSystemRecord, lockSeq, removeRecords, restoreHeads } from "../records/index.js";
import { enqueue } from "../worker/index.js";
import { expandClosure } from "./closure.js";
import { INDEX_DELETE_JOB } from "./index-delete.js";
import * as sql from "./sql.js";
import { ERROR_GONE, emptiedEntities, forgetEnrichment, forgetEntities } from "./traces.js";

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

async function remove(tx: Queryable, workspaceId: string, target: ErasureTarget, maxRecords: number) {
  const seeds = await target.seeds(tx);
  const ids = await expandClosure(tx, workspaceId, seeds, maxRecords);
  const rows = await removeRecords(tx, workspaceId, ids);
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
  await scrubRuns(tx, workspaceId, {
    entities: entities.filter((entity) => !gone.has(entity)),
    ids,
    errorText: ERROR_GONE,
  });
  const headsRestored = await restoreHeads(tx, workspaceId, rows);
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
  /** With list: the newest derived records, named (at most listMax). */
  derived_records?: DerivedRecord[];
  derived_records_truncated?: boolean;
}

export interface DerivedRecord {
  id: string;
  entity: string;
  collection: string;
  key: string | null;
  type: string;
  text: string;
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
  options: { maxRecords: number; listMax?: number },
): Promise<ErasurePreview> {
  const { maxRecords, listMax } = options;
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
    const preview: ErasurePreview = {
      dry_run: true,
      deleted: ids.length,
      affected_entities: counts?.affected_entities ?? 0,
      by_collection: counts?.by_collection ?? {},
      derived: ids.length - seeds.length,
    };
    if (listMax === undefined) return preview;
    const { rows } = await tx.query<DerivedRecord>(sql.CLOSURE_DERIVED, [workspaceId, ids, seeds, listMax]);
    return { ...preview, derived_records: rows, derived_records_truncated: preview.derived > rows.length };
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
