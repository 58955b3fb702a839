// POST /records: validate the whole batch, then write it in one transaction with its seq
// numbers, keyed heads and enrichment jobs. A refused batch writes nothing.
import { randomUUID } from "node:crypto";
import { confirmCatalog, requireCatalog } from "../catalog/index.js";
import type { Db, Queryable } from "../platform/db/index.js";
import { AppError, validationError } from "../platform/errors.js";
import { enqueue } from "../worker/queue.js";
import type { Workspace } from "../workspaces/index.js";
import { searchDocument, textConfig } from "./projection.js";
import * as sql from "./sql.js";
import { type ValidRow, validateRows } from "./validate.js";

/** Worker job kind that runs a batch's required processors (executed by the worker). */
export const ENRICH_JOB = "enrich";

export interface WriteResult {
  inserted: { index: number; id: string; ready: boolean }[];
  duplicates: { index: number; id: string }[];
}

interface Planned {
  row: ValidRow;
  id: string;
  /** Set when the row repeats an earlier write (or an earlier row of this batch). */
  duplicateOf?: string;
}

/** Dedupe: same key and payload is a duplicate of the original; a different payload refuses all. */
async function resolveDuplicates(tx: Queryable, workspaceId: string, rows: ValidRow[]): Promise<Planned[]> {
  const keys = [...new Set(rows.flatMap((row) => (row.dedupeKey === null ? [] : [row.dedupeKey])))];
  const stored = new Map<string, { id: string; payload_hash: string }>();
  if (keys.length > 0) {
    const { rows: found } = await tx.query<{ id: string; dedupe_key: string; payload_hash: string }>(
      sql.FIND_DEDUPE,
      [workspaceId, keys],
    );
    for (const row of found) stored.set(row.dedupe_key, row);
  }
  return rows.map((row) => {
    const id = randomUUID();
    if (row.dedupeKey === null) return { row, id };
    const original = stored.get(row.dedupeKey);
    if (!original) {
      stored.set(row.dedupeKey, { id, payload_hash: row.payloadHash });
      return { row, id };
    }
    if (original.payload_hash !== row.payloadHash) {
      throw new AppError(
        "dedupe_conflict",
        `records.${row.index}: dedupe_key "${row.dedupeKey}" was already written with a different payload; nothing was written`,
        { index: row.index, dedupe_key: row.dedupeKey, id: original.id },
      );
    }
    return { row, id, duplicateOf: original.id };
  });
}

/** derived_from parents must exist in this workspace; depth is the deepest parent's plus one. */
async function parentDepths(
  tx: Queryable,
  workspaceId: string,
  rows: ValidRow[],
): Promise<Map<string, number>> {
  const ids = [...new Set(rows.flatMap((row) => row.derivedFrom))];
  if (ids.length === 0) return new Map();
  const { rows: found } = await tx.query<{ id: string; depth: number }>(sql.FIND_PARENTS, [workspaceId, ids]);
  const depths = new Map(found.map((row) => [row.id, row.depth]));
  const missing = rows.flatMap((row) =>
    row.derivedFrom.flatMap((id, i) =>
      depths.has(id)
        ? []
        : [{ path: `records.${row.index}.derived_from.${i}`, message: `no record ${id} in this workspace` }],
    ),
  );
  if (missing.length > 0) throw validationError("derived_from names records that do not exist", missing);
  return depths;
}

export async function writeRecords(
  db: Db,
  workspace: Workspace,
  rows: unknown,
  options: { maxBatch: number },
): Promise<WriteResult> {
  const seen = await requireCatalog(db, workspace.id);
  let valid = validateRows(rows, seen, options.maxBatch);
  const result = await db.transaction(async (tx) => {
    // Taken first: it serializes this workspace's writers (and publishes), so dedupe checks see
    // every earlier commit, seq order is commit order, and the contract cannot change under us.
    const { rows: seqRows } = await tx.query<{ last_seq: number }>(sql.LOCK_SEQ, [workspace.id]);
    const catalog = await confirmCatalog(tx, workspace.id, seen);
    if (catalog !== seen) valid = validateRows(rows, catalog, options.maxBatch);
    const planned = await resolveDuplicates(tx, workspace.id, valid);
    const fresh = planned.filter((p) => p.duplicateOf === undefined);
    const depths = await parentDepths(
      tx,
      workspace.id,
      fresh.map((p) => p.row),
    );
    let seq = seqRows[0]?.last_seq ?? 0;
    if (fresh.length > 0) await tx.query(sql.ADVANCE_SEQ, [workspace.id, fresh.length]);
    const inserts = fresh.map(({ row, id }) => ({
      id,
      seq: ++seq,
      collection: row.collection.name,
      collection_version: row.collection.version,
      collection_hash: row.collectionHash,
      entity: row.entity,
      type: row.type,
      key: row.key,
      status: row.status,
      ready: row.collection.required_processors.length === 0,
      tombstone: row.tombstone,
      text: row.text,
      content: row.content,
      scores: row.scores,
      annotations: row.annotations,
      derived_from: row.derivedFrom,
      depth:
        row.derivedFrom.length === 0 ? 0 : Math.max(...row.derivedFrom.map((p) => depths.get(p) ?? 0)) + 1,
      dedupe_key: row.dedupeKey,
      payload_hash: row.payloadHash,
      occurred_at: row.occurredAt,
      // Rows with nothing to enrich are searchable at once.
      config: textConfig(catalog, row.collection),
      document: searchDocument(row.text, row.content, row.collection),
    }));
    if (inserts.length > 0) {
      await tx.query(sql.INSERT_RECORDS, [workspace.id, JSON.stringify(inserts)]);
      // One head per slot and status: the batch's newest row (ON CONFLICT may touch a row once).
      const heads = new Map<string, (typeof inserts)[number]>();
      for (const row of inserts) {
        if (row.key !== null)
          heads.set(JSON.stringify([row.entity, row.collection, row.key, row.status]), row);
      }
      if (heads.size > 0) {
        const headRows = [...heads.values()].map((row) => ({
          entity: row.entity,
          collection: row.collection,
          key: row.key,
          status: row.status,
          record_id: row.id,
          seq: row.seq,
          tombstone: row.tombstone,
        }));
        await tx.query(sql.UPSERT_HEADS, [workspace.id, JSON.stringify(headRows)]);
      }
      const unready = inserts.filter((row) => !row.ready).map((row) => row.id);
      if (unready.length > 0) {
        await enqueue(tx, { workspaceId: workspace.id, kind: ENRICH_JOB, payload: { record_ids: unready } });
      }
    }
    const readyById = new Map(inserts.map((row) => [row.id, row.ready]));
    return {
      inserted: fresh.map(({ row, id }) => ({ index: row.index, id, ready: readyById.get(id) as boolean })),
      duplicates: planned.flatMap((p) => (p.duplicateOf ? [{ index: p.row.index, id: p.duplicateOf }] : [])),
    };
  });
  db.noteWrites(result.inserted.length);
  return result;
}
