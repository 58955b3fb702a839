// GET /records: the workspace's records across entities, newest first (docs/api.md "GET
// /records"), for a curator's list of memories. Filters by collection, type, status and creation
// time; pages with an opaque cursor (the last row's seq, encoded, so a client never builds one).
import type { Queryable } from "../platform/db/index.js";
import { validationError } from "../platform/errors.js";
import { type StatusFilter, zonedInstant } from "./read.js";
import * as sql from "./sql.js";
import { SYSTEM_COLLECTION } from "./validate.js";

export interface ListQuery {
  collection?: string;
  type?: string;
  status: StatusFilter;
  /** Only records created after this moment (to the millisecond replies carry). */
  createdAfter?: string;
  /** Only records created before this moment. */
  createdBefore?: string;
  limit: number;
  /** The cursor of the page before (next_before). */
  before?: string;
}

export interface ListedRow {
  id: string;
  seq: number;
  entity: string;
  collection: string;
  key: string | null;
  type: string;
  status: string;
  ready: boolean;
  tombstone: boolean;
  text: string;
  occurred_at: Date;
  created_at: Date;
}

const CURSOR_PREFIX = "r1.";

/** The cursor of a page ending at this seq: opaque to clients, versioned for the server. */
export function listCursor(seq: number): string {
  return CURSOR_PREFIX + Buffer.from(String(seq)).toString("base64url");
}

/** The seq a cursor this route returned stands for; anything else is 422 naming `before`. */
function cursorSeq(cursor: string): number {
  const encoded = cursor.startsWith(CURSOR_PREFIX) ? cursor.slice(CURSOR_PREFIX.length) : "";
  const text = Buffer.from(encoded, "base64url").toString();
  if (!/^[1-9]\d{0,15}$/.test(text) || listCursor(Number(text)) !== cursor) {
    const message = "must be a next_before this list returned";
    throw validationError(`invalid before: ${message}`, [{ path: "querystring.before", message }]);
  }
  return Number(text);
}

/** One page of the workspace's records, newest first; `_system` rows only when asked for by name. */
export async function listRecords(
  db: Queryable,
  workspaceId: string,
  q: ListQuery,
): Promise<{ records: ListedRow[]; next_before: string | null }> {
  const { rows } = await db.query<ListedRow>(sql.LIST_RECORDS, [
    workspaceId,
    q.collection ?? null,
    q.type ?? null,
    q.status === "all" ? null : q.status,
    zonedInstant(q.createdAfter, "querystring.created_after") ?? null,
    zonedInstant(q.createdBefore, "querystring.created_before") ?? null,
    q.before === undefined ? null : cursorSeq(q.before),
    q.limit + 1,
    SYSTEM_COLLECTION,
  ]);
  const more = rows.length > q.limit;
  const records = more ? rows.slice(0, q.limit) : rows;
  const last = records[records.length - 1];
  return { records, next_before: more && last ? listCursor(last.seq) : null };
}
