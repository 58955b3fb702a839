// POST /records: validate the whole batch, then write it in one transaction with its seq
// numbers, keyed heads and enrichment jobs. A refused batch writes nothing.
import { randomUUID } from "node:crypto";
import { confirmCatalog, type InstalledCatalog, requireCatalog } from "../catalog/index.js";
import type { Db, Queryable } from "../platform/db/index.js";
import { AppError, validationError } from "../platform/errors.js";
import type { Workspace } from "../platform/workspace.js";
import { refuseWhenBacklogged } from "../worker/index.js";
import { insertRecords, lockSeq, type NewRecord } from "./insert.js";
import * as sql from "./sql.js";
import { validateRows } from "./validate.js";

export interface WriteResult {
  inserted: { index: number; id: string; ready: boolean }[];
  duplicates: { index: number; id: string }[];
  /** The enrichment job this write queued (GET /jobs/{id} tells when it is done), or null. */
  job_id: string | null;
}

interface Planned {
  row: NewRecord;
  id: string;
  /** Set when the row repeats an earlier write (or an earlier row of this batch). */
  duplicateOf?: string;
}

/** Dedupe: same key and payload is a duplicate of the original; a different payload refuses all. */
async function resolveDuplicates(tx: Queryable, workspaceId: string, rows: NewRecord[]): Promise<Planned[]> {
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
    const id = row.id ?? randomUUID();
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

/**
 * A btree entry holds at most about 2.7 kB, so a string past that at a path a field index covers
 * (src/search/field-indexes.ts) cannot be indexed: PostgreSQL refuses the row with SQLSTATE 54000.
 * That is the writer's input, not a server failure; the transaction wrote nothing.
 */
function tooLargeToIndex(error: unknown): boolean {
  return (
    error instanceof Error &&
    (error as { code?: unknown }).code === "54000" &&
    /index row/i.test(error.message)
  );
}

/**
 * Writes rows in one transaction under the workspace's seq lock: dedupe against earlier commits,
 * then insert. `build` makes the rows from the catalog in force; it runs again if a publish
 * changed the catalog since `seen`. Client writes and the rows Engram writes itself (snapshots,
 * feedback, saved answers) share this path; `after` writes what must commit with the rows.
 */
export async function writeRows(
  db: Db,
  workspaceId: string,
  seen: InstalledCatalog,
  build: (catalog: InstalledCatalog) => NewRecord[],
  after?: (tx: Queryable, result: WriteResult) => Promise<void>,
): Promise<WriteResult> {
  let rows = build(seen);
  const result = await db
    .transaction(async (tx) => {
      // Taken first: it serializes this workspace's writers (and publishes), so dedupe checks see
      // every earlier commit, seq order is commit order, and the contract cannot change under us.
      const lastSeq = await lockSeq(tx, workspaceId);
      await refuseWhenBacklogged(tx, workspaceId);
      const catalog = await confirmCatalog(tx, workspaceId, seen);
      if (catalog !== seen) rows = build(catalog);
      const planned = await resolveDuplicates(tx, workspaceId, rows);
      const fresh = planned.filter((p) => p.duplicateOf === undefined);
      const inserted = await insertRecords(tx, {
        workspaceId,
        catalog,
        lastSeq,
        rows: fresh.map(({ row, id }) => ({ ...row, id })),
      });
      const written = {
        inserted: inserted.rows.map(({ index, id, ready }) => ({ index, id, ready })),
        duplicates: planned.flatMap((p) =>
          p.duplicateOf ? [{ index: p.row.index, id: p.duplicateOf }] : [],
        ),
        job_id: inserted.enrichJobId,
      };
      await after?.(tx, written);
      return written;
    })
    .catch((error: unknown) => {
      if (!tooLargeToIndex(error)) throw error;
      throw validationError("a content value is too long to be indexed; nothing was written", [
        {
          path: "records",
          message:
            "a string at a path a collection field filters or sorts on holds more than about 2,700 bytes",
        },
      ]);
    });
  db.noteWrites(result.inserted.length);
  return result;
}

/** POST /records: client rows, validated against the catalog; they cite nothing. */
export async function writeRecords(
  db: Db,
  workspace: Workspace,
  rows: unknown,
  options: { maxBatch: number },
): Promise<WriteResult> {
  const seen = await requireCatalog(db, workspace.id);
  return writeRows(db, workspace.id, seen, (catalog) =>
    validateRows(rows, catalog, options.maxBatch).map((row) => ({ ...row, citations: [], runId: null })),
  );
}
