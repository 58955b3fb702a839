// A write larger than one request may carry is sent as consecutive batches, each within the
// server's row and body limits (GET /workspace limits). Each batch is atomic on the server; the
// write as a whole is not, so a failure after the first batch says what was written.
import type { RecordRow, WorkspaceInfo, WriteResponse } from "./types.js";

export type WriteLimits = WorkspaceInfo["limits"];

/** The server's defaults, for a server that does not publish its limits. */
export const DEFAULT_LIMITS: WriteLimits = { max_batch_records: 1000, max_body_bytes: 16 * 1024 * 1024 };

export interface Batch {
  /** Index of the batch's first row in the caller's array. */
  start: number;
  rows: RecordRow[];
}

const ENVELOPE_BYTES = '{"records":[]}'.length;
const encoder = new TextEncoder();

/** Consecutive batches in order; a row too large for any request goes alone (the server refuses it). */
export function splitBatches(rows: RecordRow[], limits: WriteLimits): Batch[] {
  const batches: Batch[] = [];
  let current: Batch | undefined;
  let bytes = ENVELOPE_BYTES;
  rows.forEach((row, index) => {
    const size = encoder.encode(JSON.stringify(row)).length + 1;
    const full =
      current !== undefined &&
      (current.rows.length >= limits.max_batch_records || bytes + size > limits.max_body_bytes);
    if (current === undefined || full) {
      current = { start: index, rows: [] };
      batches.push(current);
      bytes = ENVELOPE_BYTES;
    }
    current.rows.push(row);
    bytes += size;
  });
  return batches;
}

/** The merged answer of a write's batches; `job_ids` are the enrichment jobs the batches queued. */
export interface WriteResult {
  inserted: WriteResponse["inserted"];
  duplicates: WriteResponse["duplicates"];
  job_ids: string[];
}

/** Adds one batch's answer, its indexes moved to the caller's array. */
export function mergeBatch(result: WriteResult, batch: Batch, answer: WriteResponse): void {
  for (const item of answer.inserted) result.inserted.push({ ...item, index: item.index + batch.start });
  for (const item of answer.duplicates) result.duplicates.push({ ...item, index: item.index + batch.start });
  if (answer.job_id !== null) result.job_ids.push(answer.job_id);
}

/** A write that failed after some of its batches were committed. */
export class PartialWriteError extends Error {
  /** What the committed batches wrote (indexes into the caller's array). */
  readonly written: WriteResult;
  /** Index of the first row not written; rows from here on were not committed. */
  readonly firstUnwritten: number;

  constructor(cause: unknown, written: WriteResult, firstUnwritten: number) {
    super(`the write failed at row ${firstUnwritten}; rows before it were written: ${String(cause)}`, {
      cause,
    });
    this.name = "PartialWriteError";
    this.written = written;
    this.firstUnwritten = firstUnwritten;
  }
}
