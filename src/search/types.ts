// What search execution passes between its stages.

/**
 * One candidate record with what ranking reads (scores, signals, times) and what fusion, graph
 * boost and rendering read beside it. Its body (RecordBody) is read for the shown records only.
 */
export interface Candidate {
  id: string;
  seq: number;
  collection: string;
  collection_version: number;
  entity: string;
  type: string;
  key: string | null;
  status: "active" | "draft";
  depth: number;
  run_id: string | null;
  scores: Record<string, number>;
  occurred_at: Date;
  created_at: Date;
  /** When a search last returned the record (null: never). */
  last_accessed: Date | null;
  /** 1 - cosine distance to the query embedding (vector and hybrid candidates). */
  similarity?: number;
  /** Full-text rank of the query, 0 upward (text and hybrid candidates). */
  text_match?: number;
  /** Structured candidates of a search with explain: the value of each order_by key, as sorted. */
  order_values?: unknown[];
}

/** What a hit, a rendered row or a rerank judge reads of a record beyond ranking (src/search/bodies.ts). */
export interface RecordBody {
  text: string;
  content: Record<string, unknown>;
  annotations: Record<string, unknown>;
}

/** A record a search shows: its candidate columns and its body. */
export type ShownCandidate = Candidate & RecordBody;
