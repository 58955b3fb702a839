// SQL of the candidate proposals: each statement's text, assembled from the filters, signals and
// reads that candidates.ts chose for the search (which mode, which index, how deep, why).
import type { Db } from "../platform/db/index.js";
import { vectorLiteral } from "../records/index.js";
import type { Params } from "./sql.js";

export interface QueryVector {
  space: string;
  vector: number[];
}

/** Similarity of the stored embedding to the query: pgvector's cosine operator, or an exact scan. */
export function similaritySql(db: Pick<Db, "hasVector">, params: Params, query: QueryVector): string {
  // A zero vector (a text with no word the embedder knows) has no cosine: pgvector says NaN,
  // which sorts above every number, and here counts as no similarity (NULLS LAST), as in the
  // exact scan of real[] below (HNSW indexes leave such vectors out).
  if (db.hasVector)
    return `NULLIF(1 - (e.embedding <=> ${params.add(vectorLiteral(query.vector))}::vector), 'NaN'::float8)`;
  // Exact scan: the query vector arrives as a real[] constant and its norm is computed here, so
  // each row costs one pass over its own array (decoding the vector per row cost 3x more).
  const norm = Math.hypot(...query.vector);
  return `(SELECT sum(a * b) / NULLIF(sqrt(sum(a * a)) * ${params.add(norm)}::float8, 0)
    FROM unnest(e.embedding, ${params.add(query.vector)}::real[]) AS t(a, b))`;
}

/**
 * Each record's embedding in the query's space, probed by its primary key. LIMIT 1 (the key is
 * unique) keeps the planner from flattening the probe into a join: with no statistics yet (right
 * after an import, before autovacuum analyzes) it ran that join as a scan of every embedding of
 * the workspace's space for each record (310k buffers for an entity of 75 records, 1.5k after
 * ANALYZE; test/integration/plans-without-statistics.test.ts).
 */
export function embeddingJoinSql(
  params: Params,
  /** `optional`: a record without an embedding in the space stays, with a null one. */
  read: { workspaceId: string; space: string; optional: boolean },
): string {
  return `${read.optional ? "LEFT JOIN" : "JOIN"} LATERAL (SELECT e.record_id, e.embedding FROM embeddings e
    WHERE e.workspace_id = ${params.workspace(read.workspaceId)} AND e.record_id = r.id AND e.space = ${params.add(read.space)} LIMIT 1) e ON true`;
}

/** The records of `entities`, read through the entity index alone (OFFSET 0 fences it). */
export function entityRecordsSql(params: Params, workspaceId: string, entities: string[]): string {
  return `LATERAL (SELECT * FROM records t WHERE t.workspace_id = ${params.workspace(workspaceId)}
    AND t.entity = ANY(${params.add(entities)}::text[]) OFFSET 0) r`;
}

/** The pieces every proposal statement is assembled from. */
export interface ProposalParts {
  /** candidateColumns, as the statement reads them. */
  select: string;
  /** The missing signals' columns, each after a comma (or nothing). */
  signals: string;
  where: string;
  /** The LIMIT's parameter. */
  limit: string;
}

/** Text matches, best text_match first, from `matches` (an index read the caller chose). */
export function textProposalSql(
  parts: ProposalParts & { textMatch: string; tsq: string; matches: string },
): string {
  return `SELECT ${parts.select}, ${parts.textMatch} AS text_match${parts.signals}
     FROM (SELECT ${parts.tsq} AS tsq) q, ${parts.matches}
     WHERE ${parts.where} AND r.search_text @@ q.tsq
     ORDER BY text_match DESC, r.seq DESC LIMIT ${parts.limit}`;
}

/**
 * Where nearest rows come from: `leads`, the walk's rows are leads of identical vectors, each
 * expanded to the records holding its vector (`copies`); else the records joined to their
 * embeddings in `rows`.
 */
export function nearestFromSql(read: {
  rows: string;
  where: string;
  workspace: string;
  copies?: string;
}): string {
  const ws = read.workspace;
  return read.copies !== undefined
    ? `embeddings e ${read.copies} JOIN records r ON r.workspace_id = ${ws} AND r.id = x.id
       WHERE e.workspace_id = ${ws} AND ${read.rows} AND ${read.where}`
    : `records r JOIN embeddings e ON e.workspace_id = ${ws} AND e.record_id = r.id AND ${read.rows}
       WHERE ${read.where}`;
}

/**
 * The nearest rows to the query vector (its parameter `query`): by the indexed expression when
 * `index` names it (the walk: the ORDER BY is the indexed expression), else by the stored vector
 * (exact). At half precision the similarity takes a second distance on the stored vector.
 */
export function nearestSql(
  parts: Omit<ProposalParts, "where"> & {
    from: string;
    query: string;
    index?: { expression: string; type: string };
  },
): string {
  const stored = `e.embedding <=> ${parts.query}::vector`;
  const distance = parts.index ? `${parts.index.expression} <=> ${parts.query}::${parts.index.type}` : stored;
  const similarity = parts.index?.type === "vector" ? distance : stored;
  return `SELECT ${parts.select}, 1 - (${similarity}) AS similarity${parts.signals}
       FROM ${parts.from}
       ORDER BY ${distance} LIMIT ${parts.limit}`;
}

/** The walk's nearest rows and the deferred tail's, scanned exactly, merged best first. */
export function walkWithTailSql(walk: string, tail: string, limit: string): string {
  return `SELECT * FROM ((${walk}) UNION ALL (${tail})) u
         ORDER BY similarity DESC, seq DESC LIMIT ${limit}`;
}

/** The embeddings in `space` of the records `ids`: seeds the vector list scores exactly. */
export function seedRowsSql(params: Params, space: string, ids: string[]): string {
  return `e.space = ${params.add(space)} AND e.record_id = ANY(${params.add(ids)}::uuid[])`;
}

/** Every embedding in scope scored exactly, nearest first (no HNSW index serves the search). */
export function exactVectorSql(
  parts: ProposalParts & { similarity: string; rows: string; join: string },
): string {
  return `SELECT ${parts.select}, ${parts.similarity} AS similarity${parts.signals}
     FROM ${parts.rows} ${parts.join}
     WHERE ${parts.where}
     ORDER BY similarity DESC NULLS LAST, r.seq DESC LIMIT ${parts.limit}`;
}

/** The newest records in scope. */
export function recentSql(parts: ProposalParts): string {
  return `SELECT ${parts.select}${parts.signals} FROM records r WHERE ${parts.where}
     ORDER BY r.occurred_at DESC, r.seq DESC LIMIT ${parts.limit}`;
}

/** The records in scope in the search's order_by (`order`); `orderValues`: explain's column of the sorted values, or nothing. */
export function structuredSql(
  parts: Omit<ProposalParts, "signals"> & { orderValues: string; order: string },
): string {
  return `SELECT ${parts.select}${parts.orderValues} FROM records r WHERE ${parts.where}
     ORDER BY ${parts.order} LIMIT ${parts.limit}`;
}

/** Explain's column of the values a structured search sorts by, as sorted. */
export function orderValuesSql(values: string[]): string {
  return `, jsonb_build_array(${values.join(", ")}) AS order_values`;
}

/** A query without a wanted term: it matches nothing. */
export const NO_TSQUERY = "''::tsquery";

/** A hybrid row's text_match when its list did not compute it: 0 where the record does not match. */
export function textMatchColumnSql(tsq: string | undefined, textMatch: string): string {
  return `(SELECT CASE WHEN r.search_text @@ x.tsq THEN ${textMatch} ELSE 0 END
      FROM (SELECT ${tsq ?? NO_TSQUERY} AS tsq) x) AS text_match`;
}

/** A hybrid row's similarity when its list did not compute it: null without an embedding in the space. */
export function similarityColumnSql(read: { similarity: string; workspace: string; space: string }): string {
  return `(SELECT ${read.similarity} FROM embeddings e
          WHERE e.workspace_id = ${read.workspace} AND e.record_id = r.id AND e.space = ${read.space}) AS similarity`;
}

export const NO_SIMILARITY = "NULL::float8 AS similarity";

/** Every record of the workspace, for the planner to read as the filters suit it. */
export const ALL_RECORDS = "records r";

/**
 * Hybrid scoped by entity in one statement: each row of the entity's (`rows`, with the embedding
 * `join`) with both signals computed once below the fence (OFFSET 0), and its place in each list's
 * order (vector, text, newest first) up to `limit`; the three orders sort narrow rows, and
 * text_match is null where the row does not match (0 in the candidate).
 */
export function entityHybridSql(parts: {
  /** The query's tsquery and the text rank of a match: none when the query wants no term. */
  text: { tsq: string; rank: string } | undefined;
  /** The embedding join and similarity: none without a query vector. */
  vector: { join: string; similarity: string } | undefined;
  limit: string;
  select: string;
  /** candidateColumns, for the inner rows. */
  columns: string;
  rows: string;
  where: string;
}): string {
  const n = parts.limit;
  const textMatch = parts.text
    ? `CASE WHEN r.search_text @@ q.tsq THEN ${parts.text.rank} END`
    : "NULL::float8";
  const embedded = parts.vector ? "e.record_id IS NOT NULL" : "false";
  return `SELECT ${parts.select}, y.similarity, coalesce(y.text_match, 0) AS text_match,
       y.vector_rank, y.text_rank, y.recent_rank FROM (
       SELECT x.*,
         CASE WHEN x.embedded THEN row_number() OVER (ORDER BY x.embedded DESC, x.similarity DESC NULLS LAST, x.seq DESC) END AS vector_rank,
         CASE WHEN x.text_match IS NOT NULL THEN row_number() OVER (ORDER BY x.text_match DESC NULLS LAST, x.seq DESC) END AS text_rank,
         row_number() OVER (ORDER BY x.occurred_at DESC, x.seq DESC) AS recent_rank
       FROM (SELECT r.workspace_id, ${parts.columns}, ${embedded} AS embedded,
               ${parts.vector?.similarity ?? "NULL::float8"} AS similarity, ${textMatch} AS text_match
             FROM (SELECT ${parts.text?.tsq ?? NO_TSQUERY} AS tsq) q, ${parts.rows} ${parts.vector?.join ?? ""}
             WHERE ${parts.where} OFFSET 0) x) y
     WHERE y.vector_rank <= ${n} OR y.text_rank <= ${n} OR y.recent_rank <= ${n}`;
}
