// The cells of the text index (migration 0021, engram_text_cells): each (record, lexeme) is in
// the cell of its occurrence count's bucket and its record length's bucket, and a lexeme's
// BM25 weight in any record of a cell is at most the weight at the cell's corner of most
// occurrences and least length. Reading a word's cells from the highest bound down bounds what
// every record not read yet can weigh (text-walk.ts).
import { type Bm25Rank, termWeight } from "./bm25.js";

/** Lengths from this share one bucket (engram_text_cells). */
const LAST_BUCKET = 16384;
/** Occurrences of a lexeme: a vector keeps at most 255 positions. */
const MAX_OCCURRENCES = 255;

/** The width of the bucket holding n: one below 8, then four buckets per doubling. */
function width(n: number): number {
  if (n < 8) return 1;
  return 2 ** Math.floor(Math.log2(n)) / 4;
}

/** The bucket of n, as engram_text_cells computes it (its lower bound). */
export function bucketOf(n: number): number {
  if (n < 8) return n;
  if (n >= LAST_BUCKET) return LAST_BUCKET;
  return n - (n % width(n));
}

/** Every bucket's lower and upper bound, from 1 up to `max` (the last one open-ended when max is the last bucket). */
function buckets(max: number): { low: number; high: number }[] {
  const out: { low: number; high: number }[] = [];
  for (let low = 1; low <= max; low += width(low)) {
    out.push({ low, high: low >= LAST_BUCKET ? Number.POSITIVE_INFINITY : low + width(low) - 1 });
  }
  return out;
}

const OCCURRENCE_BUCKETS = buckets(MAX_OCCURRENCES);
const LENGTH_BUCKETS = buckets(LAST_BUCKET);

export interface Cell {
  occurrences: number;
  length: number;
  /** The most a lexeme of this cell weighs in a record (termWeight, before idf). */
  weight: number;
}

/**
 * Every cell a record can be in (a lexeme occurs at most as often as the record is long), best
 * bound first, under the rank's k1, b and mean length.
 */
export function cellsByBound(rank: Pick<Bm25Rank, "k1" | "b" | "avgdl">): Cell[] {
  const cells: Cell[] = [];
  for (const o of OCCURRENCE_BUCKETS) {
    for (const l of LENGTH_BUCKETS) {
      if (o.low > l.high) continue;
      // The weight grows with occurrences and falls with length; tf <= length.
      const tf = Math.min(o.high, l.high);
      const length = Math.max(l.low, tf);
      cells.push({ occurrences: o.low, length: l.low, weight: termWeight(rank, tf, length) });
    }
  }
  return cells.sort((a, b) => b.weight - a.weight);
}

/** A cell's token for a lexeme of the workspace (engram_text_cells). */
export const cellToken = (workspaceId: string, cell: Cell, lexeme: string) =>
  `${workspaceId}:${cell.occurrences}:${cell.length}:${lexeme}`;
