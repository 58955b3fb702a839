// The one way rows enter the system of record, inside a transaction that holds the workspace's
// seq lock: seq numbers, keyed heads, enrichment jobs, and the ready hook for rows that are
// searchable at once. Client writes (write.ts) and derivation output both go through here.
import { randomUUID } from "node:crypto";
import type { InstalledCatalog } from "../catalog/index.js";
import type { Queryable } from "../platform/db/index.js";
import { validationError } from "../platform/errors.js";
import { enqueue } from "../worker/index.js";
import { searchDocument, textConfig } from "./projection.js";
import { recordsReady } from "./ready-hooks.js";
import * as sql from "./sql.js";
import { countSearchable, uncountSearchable } from "./text-stats.js";
import type { ValidRow } from "./validate.js";

/** Worker job kind that runs a batch's required processors (executed by the worker). */
export const ENRICH_JOB = "enrich";

/** A row to insert: a validated write row, or one a derivation or promotion builds. */
export interface NewRecord extends ValidRow {
  /** A preassigned id (a batch's dedupe needs it before the insert); else a fresh one. */
  id?: string;
  citations: string[];
  runId: string | null;
}

export interface Inserted {
  index: number;
  id: string;
  seq: number;
  ready: boolean;
}

/** The workspace's newest seq, without locking the counter (0 before its first record). */
export async function lastSeq(tx: Queryable, workspaceId: string): Promise<number> {
  const { rows } = await tx.query<{ last_seq: number }>(sql.LAST_SEQ, [workspaceId]);
  return Number(rows[0]?.last_seq ?? 0);
}

/** Locks the workspace's seq counter (taken first: it serializes the workspace's writers). */
export async function lockSeq(tx: Queryable, workspaceId: string): Promise<number> {
  const { rows } = await tx.query<{ last_seq: number }>(sql.LOCK_SEQ, [workspaceId]);
  return Number(rows[0]?.last_seq ?? 0);
}

/** derived_from parents must exist in this workspace; depth is the deepest parent's plus one. */
async function parentDepths(
  tx: Queryable,
  workspaceId: string,
  rows: NewRecord[],
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

/**
 * Inserts rows after `lastSeq` (the value lockSeq returned, or the seq of the transaction's own
 * last insert) and returns them in order with their ids and seqs.
 */
export interface InsertResult {
  rows: Inserted[];
  /** The enrichment job queued for the rows that are not ready, or null when all are. */
  enrichJobId: string | null;
}

export async function insertRecords(
  tx: Queryable,
  write: { workspaceId: string; catalog: InstalledCatalog; lastSeq: number; rows: NewRecord[] },
): Promise<InsertResult> {
  const { workspaceId, catalog, rows } = write;
  if (rows.length === 0) return { rows: [], enrichJobId: null };
  const depths = await parentDepths(tx, workspaceId, rows);
  let seq = write.lastSeq;
  await tx.query(sql.ADVANCE_SEQ, [workspaceId, rows.length]);
  const inserts = rows.map((row) => ({
    index: row.index,
    id: row.id ?? randomUUID(),
    seq: ++seq,
    collection: row.collection.name,
    collection_version: row.collection.version,
    collection_hash: row.collectionHash,
    entity: row.entity,
    type: row.type,
    key: row.key,
    status: row.status,
    // Rows with nothing to enrich are searchable at once.
    ready: row.collection.required_processors.length === 0,
    tombstone: row.tombstone,
    text: row.text,
    content: row.content,
    scores: row.scores,
    annotations: row.annotations,
    citations: row.citations,
    derived_from: row.derivedFrom,
    depth: row.derivedFrom.length === 0 ? 0 : Math.max(...row.derivedFrom.map((p) => depths.get(p) ?? 0)) + 1,
    run_id: row.runId,
    dedupe_key: row.dedupeKey,
    payload_hash: row.payloadHash,
    occurred_at: row.occurredAt,
    config: textConfig(catalog, row.collection),
    document: searchDocument(row.text, row.content, row.collection),
  }));
  await tx.query(sql.INSERT_RECORDS, [workspaceId, JSON.stringify(inserts)]);
  // One head per slot and status: the batch's newest row (ON CONFLICT may touch a row once).
  const heads = new Map<string, (typeof inserts)[number]>();
  for (const row of inserts) {
    if (row.key !== null) heads.set(JSON.stringify([row.entity, row.collection, row.key, row.status]), row);
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
    const headsJson = JSON.stringify(headRows);
    const superseded = await tx.query<{ record_id: string }>(sql.HEADS_BEFORE, [workspaceId, headsJson]);
    await tx.query(sql.UPSERT_HEADS, [workspaceId, headsJson]);
    // The heads moved off leave the term statistics, read after the move waited for any count of them.
    await uncountSearchable(
      tx,
      workspaceId,
      superseded.rows.map((row) => row.record_id),
      { current: false },
    );
  }
  await countSearchable(
    tx,
    workspaceId,
    inserts.filter((row) => row.ready && !row.tombstone).map((row) => row.id),
  );
  const unready = inserts.filter((row) => !row.ready).map((row) => row.id);
  const enrichJobId =
    unready.length === 0
      ? null
      : (await enqueue(tx, { workspaceId, kind: ENRICH_JOB, payload: { record_ids: unready } })).jobId;
  await recordsReady(tx, {
    workspaceId,
    catalog,
    records: inserts
      .filter((row) => row.ready)
      .map((row) => ({
        id: row.id,
        seq: row.seq,
        entity: row.entity,
        collection: row.collection,
        run_id: row.run_id,
      })),
  });
  return {
    rows: inserts.map((row) => ({ index: row.index, id: row.id, seq: row.seq, ready: row.ready })),
    enrichJobId,
  };
}
