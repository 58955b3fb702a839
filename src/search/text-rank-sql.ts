// text_match as SQL (bm25.ts reads the query's terms and statistics): BM25 over the workspace's
// own statistics without a subquery per record, or ts_rank_cd under a profile that keeps it.
import { type Bm25Rank, lexemeQuery, type Phrase, type TextRanker } from "./bm25.js";
import type { Params } from "./sql.js";

/**
 * text_match of record `r` (alias) as SQL, with no subquery per record: a lexeme's occurrences
 * are ts_rank_cd of its own one-lexeme query with every weight 1 (each occurrence is a cover of
 * its own, adding its weight), and a term weighs idf * (k1 + 1) * (1 - c / (tf + c)), c being
 * k1 * (1 - b + b * |d| / avgdl): tf * (k1 + 1) / (tf + c) with tf written once, 0 when the
 * record does not hold the term (and when c is 0 too). Phrases count their occurrences from
 * positions (engram_phrase_tf), in the records holding them. 0 for a record holding no term.
 */
export function bm25Sql(params: Params, rank: Bm25Rank, r = "r"): string {
  if (rank.norm <= 0 || rank.terms.length === 0) return "0::float8";
  const c = `(${params.add(rank.k1 * (1 - rank.b))}::float8 + ${params.add((rank.k1 * rank.b) / rank.avgdl)}::float8 * ${r}.search_length)`;
  const weight = (tf: string, idfOf: number) =>
    `${params.add(idfOf)}::float8 * (1 - coalesce(${c} / nullif(${tf} + ${c}, 0), 1))`;
  const terms = rank.terms.map((term) => {
    if (term.lexeme !== undefined) {
      const query = `${params.add(lexemeQuery(term.lexeme))}::tsquery`;
      return weight(`ts_rank_cd('{1,1,1,1}', ${r}.search_text, ${query})`, term.idf);
    }
    const phrase = term.phrase as Phrase;
    const tf = phrase.offsets
      ? `greatest(engram_phrase_tf(${r}.search_text, ${params.add(phrase.lexemes)}::text[], ${params.add(phrase.offsets)}::int[]), 1)`
      : "1";
    return `(CASE WHEN ${r}.search_text @@ ${params.add(phrase.query)}::tsquery THEN ${weight(tf, term.idf)} ELSE 0 END)`;
  });
  return `((${terms.join(" + ")}) * ${params.add((rank.k1 + 1) / rank.norm)}::float8)`;
}

/** text_match as SQL under the ranker; `tsq` the statement's tsquery (ts_rank_cd's). */
export const textMatchSql = (params: Params, ranker: TextRanker, tsq: string) =>
  ranker.kind === "bm25" ? bm25Sql(params, ranker) : `ts_rank_cd(r.search_text, ${tsq})`;
