// GET /jobs: a workspace's jobs newest first (created_at, then id), each as GET /jobs/{id} shows
// it, filtered by state and kind, in pages. The cursor (next_before) is opaque to clients: the
// base64url of the last job's created_at to the microsecond (UTC) and its id, "<time>|<uuid>".
import type { Queryable } from "../platform/db/index.js";
import { validationError } from "../platform/errors.js";
import { describeJob, type Job, type JobState } from "./queue.js";
import * as sql from "./sql.js";

type ListedJob = Omit<Job, "workspace_id" | "payload"> & { cursor_at: string };

export interface JobQuery {
  state?: JobState;
  kind?: string;
  limit: number;
  /** next_before of the previous page. */
  before?: string;
}

const CURSOR =
  /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z)\|([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

export function encodeJobCursor(at: string, id: string): string {
  return Buffer.from(`${at}|${id}`, "utf8").toString("base64url");
}

/** The time and id of a cursor this service made; anything else is 422 request_schema. */
export function decodeJobCursor(cursor: string): { at: string; id: string } {
  const refuse = () =>
    validationError("before is not a cursor from next_before", [
      { path: "querystring.before", message: "is not a cursor from next_before" },
    ]);
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw refuse();
  const match = CURSOR.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  const at = match?.[1];
  const id = match?.[2];
  if (!at || !id || !realTime(at)) throw refuse();
  return { at, id };
}

/** A well-formed time that is not a real one (month 13, February 30, year 0) never reaches the database. */
function realTime(at: string): boolean {
  const ms = Date.parse(at);
  if (Number.isNaN(ms)) return false;
  const time = new Date(ms);
  return time.getUTCFullYear() >= 1 && time.toISOString().slice(0, 23) === at.slice(0, 23);
}

export async function listJobs(db: Queryable, workspaceId: string, q: JobQuery) {
  const cursor = q.before === undefined ? undefined : decodeJobCursor(q.before);
  const { rows } = await db.query<ListedJob>(sql.JOB_PAGE, [
    workspaceId,
    q.state ?? null,
    q.kind ?? null,
    cursor?.at ?? null,
    cursor?.id ?? null,
    q.limit + 1,
  ]);
  const more = rows.length > q.limit;
  const page = more ? rows.slice(0, q.limit) : rows;
  const last = page[page.length - 1];
  return {
    jobs: page.map(describeJob),
    next_before: more && last ? encodeJobCursor(last.cursor_at, last.id) : null,
  };
}
