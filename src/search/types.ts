// What search execution passes between its stages.

/** One candidate record with everything ranking, shaping and rendering read. */
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
  text: string;
  content: Record<string, unknown>;
  scores: Record<string, number>;
  annotations: Record<string, unknown>;
  occurred_at: Date;
  created_at: Date;
  /** When a search last returned the record (null: never). */
  last_accessed: Date | null;
  /** 1 - cosine distance to the query embedding (vector and hybrid candidates). */
  similarity?: number;
  /** Full-text rank of the query, 0 upward (text and hybrid candidates). */
  text_match?: number;
}
