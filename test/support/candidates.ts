// Search candidates for the rank evaluator's unit tests: a fixed clock and fresh seqs.
import type { Candidate } from "../../src/search/types.js";

export const NOW = new Date("2025-06-01T12:00:00.000Z");
const HOUR = 3_600_000;
export const hoursAgo = (h: number) => new Date(NOW.getTime() - h * HOUR);

let nextSeq = 1;

/** A candidate written at NOW with a new seq (and an id made from it); `over` sets the rest. */
export function candidate(over: Partial<Candidate> = {}): Candidate {
  const seq = nextSeq++;
  return {
    id: `00000000-0000-4000-8000-${String(seq).padStart(12, "0")}`,
    seq,
    collection: "notes",
    collection_version: 1,
    entity: "user:1",
    type: "note",
    key: null,
    status: "active",
    depth: 0,
    run_id: null,
    scores: {},
    occurred_at: NOW,
    created_at: NOW,
    last_accessed: null,
    ...over,
  };
}
