// Combined searches (docs/api.md, "Sources, fuse and boost", rules 4-6): reciprocal rank fusion of
// the sources' ranked lists, the optional boost, and a diagnostic for rule 9. Pure functions.
//
// Decisions:
// - Each source's ids arrive ranked and already cut to that source's k (rule 6); rank counts
//   list positions from 1. Should an id repeat within one source, its first (best) position
//   counts and later repeats are ignored (they still occupy their positions).
// - The fused value sums weight / (rank_constant + rank) over the sources that found the record,
//   in source order (rule 7); source_ranks lists those sources only, in source order.
// - Ties of the fused value go to the record with the best single-source rank (smallest), then to
//   the one whose best rank comes from the earlier source in the request's order, then to the
//   smaller id (plain code-unit comparison). The result never depends on map iteration order.
// - applyBoost (rule 8) multiplies by max(0, boost) (a non-finite boost counts 0) and re-sorts;
//   ties after the boost keep the fused order, so they inherit the tie-break above.
// - Invalid input (weight not > 0, negative or non-finite rank constant, duplicate source
//   names, boost values not matching the hits) throws a RangeError: the request validation
//   already refuses all of these, so reaching here is a programming error.

export interface RankedSource {
  name: string;
  weight: number;
  /** Record ids in the source's rank order, cut to its k. */
  ids: readonly string[];
}

export interface FusedHit {
  id: string;
  /** The fused value (rule 7), or after applyBoost the boosted one (rule 8). */
  rank_score: number;
  /** Source name to the record's 1-based rank there; only the sources that found it. */
  source_ranks: Record<string, number>;
}

export interface SourceWeight {
  name: string;
  weight: number;
  k: number;
}

/** Rule 9 holds for this ordered pair: `source` sweeps every record only `over` found. */
export interface Sweep {
  source: string;
  over: string;
  /** weight(source) / weight(over). */
  ratio: number;
  /** (rank_constant + k(source)) / (rank_constant + 1); the sweep needs ratio > threshold. */
  threshold: number;
}

function checkRankConstant(rankConstant: number): void {
  if (!Number.isFinite(rankConstant) || rankConstant < 0) {
    throw new RangeError(`rank_constant must be a finite number >= 0, got ${rankConstant}`);
  }
}

function checkSources(sources: readonly { name: string; weight: number }[]): void {
  const names = new Set<string>();
  for (const s of sources) {
    if (names.has(s.name)) throw new RangeError(`duplicate source name "${s.name}"`);
    names.add(s.name);
    if (!Number.isFinite(s.weight) || s.weight <= 0) {
      throw new RangeError(`source "${s.name}": weight must be a finite number > 0, got ${s.weight}`);
    }
  }
}

interface Accumulated {
  id: string;
  value: number;
  ranks: [string, number][];
  bestRank: number;
  bestSource: number;
}

/** What one source adds to a record's fused value (rule 7): weight / (rank_constant + rank). */
export function rrfContribution(weight: number, rankConstant: number, rank: number): number {
  return weight / (rankConstant + rank);
}

/** Reciprocal rank fusion (rule 7), ordered by fused value with the documented tie-break. */
export function fuseRrf(sources: readonly RankedSource[], rankConstant: number): FusedHit[] {
  checkRankConstant(rankConstant);
  checkSources(sources);
  const byId = new Map<string, Accumulated>();
  sources.forEach((source, sourceIndex) => {
    const seen = new Set<string>();
    source.ids.forEach((id, position) => {
      if (seen.has(id)) return;
      seen.add(id);
      const rank = position + 1;
      const contribution = rrfContribution(source.weight, rankConstant, rank);
      const entry = byId.get(id);
      if (!entry) {
        byId.set(id, {
          id,
          value: contribution,
          ranks: [[source.name, rank]],
          bestRank: rank,
          bestSource: sourceIndex,
        });
        return;
      }
      entry.value += contribution;
      entry.ranks.push([source.name, rank]);
      if (rank < entry.bestRank) {
        entry.bestRank = rank;
        entry.bestSource = sourceIndex;
      }
    });
  });
  const entries = [...byId.values()].sort(
    (a, b) =>
      (a.value !== b.value ? (b.value > a.value ? 1 : -1) : 0) ||
      a.bestRank - b.bestRank ||
      a.bestSource - b.bestSource ||
      (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
  // Object.fromEntries defines own properties, so any source name (even "__proto__") is safe.
  return entries.map((e) => ({ id: e.id, rank_score: e.value, source_ranks: Object.fromEntries(e.ranks) }));
}

/**
 * Rule 8: rank_score becomes fused value * max(0, boost), boostValues[i] belonging to fused[i]
 * (evaluate the boost expression over the merged records in this order). Re-sorted by the new
 * value; ties keep the fused order. Returns new hit objects.
 */
export function applyBoost(fused: readonly FusedHit[], boostValues: readonly number[]): FusedHit[] {
  if (boostValues.length !== fused.length) {
    throw new RangeError(`applyBoost: ${boostValues.length} boost values for ${fused.length} hits`);
  }
  const boosted = fused.map((hit, i) => {
    const b = boostValues[i] as number;
    const factor = Number.isFinite(b) && b > 0 ? b : 0;
    let value = hit.rank_score * factor;
    if (value === Number.POSITIVE_INFINITY) value = Number.MAX_VALUE;
    if (!Number.isFinite(value)) value = 0;
    return { hit: { ...hit, rank_score: value }, at: i };
  });
  boosted.sort(
    (a, b) =>
      (a.hit.rank_score !== b.hit.rank_score ? (b.hit.rank_score > a.hit.rank_score ? 1 : -1) : 0) ||
      a.at - b.at,
  );
  return boosted.map((b) => b.hit);
}

/**
 * Diagnostic for rule 9: every ordered pair (source, over) whose weight ratio exceeds
 * (rank_constant + k(source)) / (rank_constant + 1). Then the worst record only `source` can
 * return, weight(source) / (rank_constant + k(source)), still beats the best record only `over`
 * can return, weight(over) / (rank_constant + 1). Pairs come in source order.
 */
export function sweepingSources(sources: readonly SourceWeight[], rankConstant: number): Sweep[] {
  checkRankConstant(rankConstant);
  checkSources(sources);
  const sweeps: Sweep[] = [];
  for (const a of sources) {
    for (const b of sources) {
      if (a === b) continue;
      const ratio = a.weight / b.weight;
      const threshold = (rankConstant + a.k) / (rankConstant + 1);
      if (ratio > threshold) sweeps.push({ source: a.name, over: b.name, ratio, threshold });
    }
  }
  return sweeps;
}
