// What the text tiers and levels (text-tiers.ts, text-levels.ts) know of ts_rank_cd over an
// any-term query: with weight D only, each occurrence of a wanted word is a cover of its own and
// adds 0.1, so a record ranks 0.1 times the occurrences of the query's words it holds.
import type { Candidate } from "./types.js";

/** What one occurrence of a word adds to ts_rank_cd (weight D; no other weight is set). */
export const PER_OCCURRENCE = 0.1;

/** Slack for ranks stored as real: a rank of n occurrences is within this of n * PER_OCCURRENCE. */
export const RANK_SLACK = 1e-4;

/** Best first: ts_rank_cd, then newest (the exhaustive statement's order). */
export const byRank = (a: Candidate, b: Candidate) =>
  Number(b.text_match) - Number(a.text_match) || Number(b.seq) - Number(a.seq);

/** A lexeme as a tsquery operand, taken as it is (no normalization again). */
const operand = (lexeme: string) => `'${lexeme.replace(/\\/g, "\\\\").replace(/'/g, "''")}'`;

/** A tsquery literal matching any of the lexemes. */
export function anyLexemeQuery(lexemes: string[]): string {
  return lexemes.map(operand).join(" | ");
}

/** The ways of choosing `size` of the items, in order. */
function subsets<T>(items: T[], size: number): T[][] {
  if (size === 0) return [[]];
  // Pruned: without it, choosing 63 of 64 explores every dead end (exponential).
  if (items.length < size) return [];
  return items.flatMap((item, i) => subsets(items.slice(i + 1), size - 1).map((rest) => [item, ...rest]));
}

/** How many ways there are of choosing `size` of `n`. */
function choose(n: number, size: number): number {
  let ways = 1;
  for (let i = 0; i < size; i++) ways = (ways * (n - i)) / (i + 1);
  return Math.round(ways);
}

/**
 * A tsquery literal matching the records that hold at least `count` of the lexemes (any
 * `count` of them, ANDed), or undefined when that takes more than `maxTerms` conjunctions.
 */
export function atLeastQuery(lexemes: string[], count: number, maxTerms: number): string | undefined {
  if (choose(lexemes.length, count) > maxTerms) return undefined;
  return subsets(lexemes, count)
    .map((chosen) => `(${chosen.map(operand).join(" & ")})`)
    .join(" | ");
}
