// engram export: a workspace (or one entity's part of it) as an engram.export/v1 stream. Every
// read runs in one read-only REPEATABLE READ transaction, so the stream is one snapshot (its end
// line's counts agree with its rows even while clients write); each kind is read a page at a time
// by its key, so memory holds one page, never the workspace.
import { installRows } from "../catalog/index.js";
import type { Db, Queryable } from "../platform/db/index.js";
import { lastSeq } from "../records/index.js";
import { VERSION } from "../version.js";
import { type Counts, END, FORMAT, type Header } from "./format.js";
import { embeddingKind, type RowKind, TABLE_KINDS } from "./kinds.js";
import * as sql from "./sql.js";

/** Rows per page: a few MB of lines at most, and few statements per 100k rows. */
const PAGE_ROWS = 1000;

export interface ExportRequest {
  workspace: { id: string };
  /** Only this entity's records and what is theirs alone (a portability request). */
  entity?: string;
  withEmbeddings?: boolean;
  /** Takes a chunk of whole lines; resolves when the chunk may be followed by the next. */
  write(chunk: string): Promise<void>;
}

async function header(tx: Queryable, request: ExportRequest): Promise<Header> {
  const id = request.workspace.id;
  const { rows } = await tx.query<{ name: string; id: string; created_at: string }>(sql.WORKSPACE_HEADER, [
    id,
  ]);
  const seq = await lastSeq(tx, id);
  const workspace = rows[0] as { name: string; id: string; created_at: string };
  return {
    format: FORMAT,
    exported_at: new Date().toISOString(),
    workspace: { ...workspace, last_seq: seq },
    entity: request.entity ?? null,
    with_embeddings: request.withEmbeddings === true,
    engram_version: VERSION,
    catalog_installs: (await installRows(tx, id)) as Header["catalog_installs"],
  };
}

/** Writes every row of one kind, page by page; returns how many. */
async function exportKind(tx: Queryable, kind: RowKind, request: ExportRequest): Promise<number> {
  const entity = request.entity !== undefined;
  if (entity && kind.entity === null) return 0;
  const fixed = [request.workspace.id, ...(entity ? [request.entity] : [])];
  let after: unknown[] | undefined;
  let count = 0;
  for (;;) {
    const text = sql.exportPageSql(kind, { entity, after: after !== undefined, limit: PAGE_ROWS });
    const { rows } = await tx.query<Record<string, unknown> & { line: string }>(text, [
      ...fixed,
      ...(after ?? []),
    ]);
    if (rows.length === 0) return count;
    count += rows.length;
    await request.write(`${rows.map((row) => row.line).join("\n")}\n`);
    if (rows.length < PAGE_ROWS) return count;
    const last = rows[rows.length - 1] as Record<string, unknown>;
    after = kind.key.map((column) => last[column]);
  }
}

/** Streams the export through request.write; returns the count of each kind written. */
export async function exportWorkspace(db: Db, request: ExportRequest): Promise<Counts> {
  return db.transaction(async (tx) => {
    await tx.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
    await request.write(`${JSON.stringify(await header(tx, request))}\n`);
    const kinds = request.withEmbeddings ? [...TABLE_KINDS, embeddingKind(db.hasVector)] : TABLE_KINDS;
    const counts: Counts = {};
    for (const kind of kinds) counts[kind.name] = await exportKind(tx, kind, request);
    await request.write(`${JSON.stringify({ kind: END, counts })}\n`);
    return counts;
  });
}
