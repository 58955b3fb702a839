// Reads of the system of record: one record, the timeline, the current-state document and a
// slot's history. Another workspace's records are indistinguishable from missing ones.
import { isZonedTimestamp } from "../catalog/index.js";
import type { Queryable } from "../platform/db/index.js";
import { AppError, validationError } from "../platform/errors.js";
import { isUuid } from "../platform/input.js";
import * as sql from "./sql.js";
import { SYSTEM_COLLECTION } from "./validate.js";

export type StatusFilter = "active" | "draft" | "all";

export interface Page<T> {
  rows: T[];
  /** Pass as before_seq for the next page; null when there is no more. */
  nextBeforeSeq: number | null;
}

/** Reads limit + 1 rows to know whether another page exists without a count. */
async function page<T extends { seq: number }>(
  rows: Promise<{ rows: T[] }>,
  limit: number,
): Promise<Page<T>> {
  const found = (await rows).rows;
  const more = found.length > limit;
  const kept = more ? found.slice(0, limit) : found;
  return { rows: kept, nextBeforeSeq: more ? (kept[kept.length - 1]?.seq ?? null) : null };
}

export async function getRecord(
  db: Queryable,
  workspaceId: string,
  id: string,
): Promise<Record<string, unknown>> {
  const row = isUuid(id)
    ? (await db.query(sql.GET_RECORD, [workspaceId, id.toLowerCase()])).rows[0]
    : undefined;
  if (!row) throw new AppError("not_found", `no record ${id}`);
  return row;
}

/** What a rendered row shows of a record. */
export interface RowFields {
  id: string;
  occurred_at: Date;
  collection: string;
  type: string;
  key: string | null;
  scores: Record<string, number>;
  text: string;
}

/** The rendered-row fields of these records, in the order of ids (missing ids left out). */
export async function rowRecords(
  db: Queryable,
  workspaceId: string,
  ids: readonly string[],
): Promise<RowFields[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.query<RowFields>(sql.ROW_RECORDS, [workspaceId, ids]);
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

export interface TimelineQuery {
  entity?: string;
  collections?: string[];
  types?: string[];
  status: StatusFilter;
  includeSystem: boolean;
  limit: number;
  beforeSeq?: number;
  /** Only the records created at or before this moment. */
  asOf?: Date;
}

/** Newest first; events and keyed rows together, successors not collapsed, unready rows included. */
export function timeline(db: Queryable, workspaceId: string, q: TimelineQuery) {
  return page(
    db.query<{ seq: number }>(sql.TIMELINE, [
      workspaceId,
      q.entity ?? null,
      q.collections ?? null,
      q.types ?? null,
      q.status === "all" ? null : q.status,
      q.includeSystem,
      q.beforeSeq ?? null,
      q.limit + 1,
      q.asOf ?? null,
    ]),
    q.limit,
  );
}

/**
 * A moment a read takes (as_of, docs/api.md "Memory over time"; GET /records' created_after and
 * created_before): an ISO 8601 timestamp with a timezone, within years 1 to 9999; anything else
 * is 422 request_schema naming the parameter at `path`.
 */
export function zonedInstant(value: string | undefined, path: string): Date | undefined {
  if (value === undefined) return undefined;
  if (!isZonedTimestamp(value)) {
    const message = "must be an ISO 8601 timestamp with a timezone (like 2026-11-20T09:30:00Z)";
    throw validationError(`invalid ${path.split(".").pop()}: ${message}`, [{ path, message }]);
  }
  return new Date(value);
}

export interface DocumentQuery {
  entity: string;
  collections?: string[];
  status: "active" | "draft";
  maxRecords: number;
  /**
   * Beliefs only, the first maxRecords of them in collection and key order, never refused: for a
   * reader bounded by something else (GET /context's token budget), not by the document bound.
   */
  firstBeliefs?: boolean;
  /** Memory as it was at this moment: only records created at or before it count. */
  asOf?: Date;
}

export interface HeadRow {
  id: string;
  seq: number;
  collection: string;
  collection_version: number;
  key: string;
  type: string;
  text: string;
  citations: string[];
  status: string;
  ready: boolean;
  tombstone: boolean;
  scores: Record<string, number>;
  run_id: string | null;
  occurred_at: Date;
  created_at: Date;
}

/**
 * For each (collection, key) of the entity the newest row of the requested status, ordered by
 * collection and key, tombstones included and `_system` left out; more than maxRecords is
 * 409 document_too_large (unless firstBeliefs). Current-ness ignores readiness.
 */
export async function currentHeads(db: Queryable, workspaceId: string, q: DocumentQuery): Promise<HeadRow[]> {
  const params = [
    workspaceId,
    q.entity,
    q.status,
    q.collections ?? null,
    q.firstBeliefs ? q.maxRecords : q.maxRecords + 1,
    Boolean(q.firstBeliefs),
  ];
  const { rows } = q.asOf
    ? await db.query<HeadRow>(sql.DOCUMENT_HEADS_AS_OF, [...params, q.asOf])
    : await db.query<HeadRow>(sql.DOCUMENT_HEADS, params);
  if (!q.firstBeliefs && rows.length > q.maxRecords) {
    throw new AppError(
      "document_too_large",
      `the document holds more than ${q.maxRecords} current records (DOCUMENT_MAX_RECORDS); narrow it with collections`,
    );
  }
  return rows.filter((row) => row.collection !== SYSTEM_COLLECTION);
}

/**
 * The current-state document: current beliefs, and current tombstones as retractions. (Its
 * freshness is the derivations module's: derivations/service.ts readDocument.)
 */
export async function currentDocument(db: Queryable, workspaceId: string, q: DocumentQuery) {
  const current = await currentHeads(db, workspaceId, q);
  const beliefs = current
    .filter((row) => !row.tombstone)
    .map((belief) => ({
      collection: belief.collection,
      collection_version: belief.collection_version,
      key: belief.key,
      type: belief.type,
      text: belief.text,
      id: belief.id,
      citations: belief.citations,
      status: belief.status,
      ready: belief.ready,
      occurred_at: belief.occurred_at,
      created_at: belief.created_at,
    }));
  const retractions = current
    .filter((row) => row.tombstone)
    .map((row) => ({ collection: row.collection, key: row.key, id: row.id, seq: row.seq }));
  return { entity: q.entity, status: q.status, beliefs, retractions };
}

/** The id of a keyed slot's live active value; null when it has none (never set, or retracted). */
export async function liveSlot(
  db: Queryable,
  workspaceId: string,
  slot: { entity: string; collection: string; key: string },
): Promise<string | null> {
  const { rows } = await db.query<{ record_id: string }>(sql.LIVE_SLOT, [
    workspaceId,
    slot.entity,
    slot.collection,
    slot.key,
  ]);
  return rows[0]?.record_id ?? null;
}

export interface HistoryQuery {
  entity: string;
  collection: string;
  key: string;
  limit: number;
  beforeSeq?: number;
}

/** Every version of one slot, newest first, with content and hashes. */
export function slotHistory(db: Queryable, workspaceId: string, q: HistoryQuery) {
  return page(
    db.query<{ seq: number }>(sql.HISTORY, [
      workspaceId,
      q.entity,
      q.collection,
      q.key,
      q.beforeSeq ?? null,
      q.limit + 1,
    ]),
    q.limit,
  );
}

export interface CitedByQuery {
  limit: number;
  beforeSeq?: number;
}

/**
 * The records whose derived_from names this record, newest first, in the full record shape of
 * GET /records/{id}; an unknown id (or another workspace's) is 404 not_found.
 */
export async function citedBy(
  db: Queryable,
  workspaceId: string,
  id: string,
  q: CitedByQuery,
): Promise<Page<Record<string, unknown> & { seq: number }>> {
  const exists = isUuid(id) && (await db.query(sql.RECORD_EXISTS, [workspaceId, id.toLowerCase()])).rows[0];
  if (!exists) throw new AppError("not_found", `no record ${id}`);
  return page(
    db.query<Record<string, unknown> & { seq: number }>(sql.CITED_BY, [
      workspaceId,
      id.toLowerCase(),
      q.beforeSeq ?? null,
      q.limit + 1,
    ]),
    q.limit,
  );
}
