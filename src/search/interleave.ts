// The round robin of hybrid's proposal lists (src/search/candidates.ts): interleaved, deduplicated,
// each list read only as deep as the round robin goes.
import type { Candidate } from "./types.js";

/**
 * Round-robin over the proposal lists, skipping ids already taken, up to the limit; `exhausted`
 * marks the lists the round robin read to their end before it was done. `offered` (explain
 * only) is refilled with each record's lists (indices) whose turn offered it, taken or not.
 */
export function interleave(
  lists: Candidate[][],
  limit: number,
  offered?: Map<string, number[]>,
): { out: Candidate[]; exhausted: boolean[] } {
  const seen = new Set<string>();
  const out: Candidate[] = [];
  const exhausted = lists.map(() => false);
  offered?.clear();
  for (let i = 0; out.length < limit && lists.some((list) => i < list.length); i++) {
    lists.forEach((list, j) => {
      if (out.length >= limit) return;
      const candidate = list[i];
      if (candidate && offered) offered.set(candidate.id, [...(offered.get(candidate.id) ?? []), j]);
      if (!candidate) exhausted[j] = true;
      else if (!seen.has(candidate.id)) {
        seen.add(candidate.id);
        out.push(candidate);
      }
    });
  }
  // Every list ran out before the limit was reached.
  if (out.length < limit) exhausted.fill(true);
  return { out, exhausted };
}

/** Hybrid lists share a few records (a recent one that also matches): read each a little deeper. */
const OVERLAP_MARGIN = 1.25;

/** How deep the round robin first reads each of `lists` lists for a pool of `limit`. */
export function firstListDepth(limit: number, lists: number): number {
  return Math.min(limit, Math.ceil((OVERLAP_MARGIN * limit) / lists));
}

/** One proposal list, read `limit` deep. */
type Proposer = (limit: number) => Promise<Candidate[]>;

/**
 * The round robin over the lists read `limit` deep, reading each only as deep as the round robin
 * goes: first a quarter more than limit / lists deep (what it takes from lists that share up to
 * a quarter of the limit), then, for a list it read to the end while that list may hold more,
 * twice as deep (up to limit), and again. A proposal's cost grows with its depth (an HNSW scan
 * iterates past ef_search, the text tiers walk further), so lists that barely overlap are read
 * a third as deep.
 */
export async function interleaveByNeed(
  proposers: Proposer[],
  limit: number,
  first = firstListDepth(limit, proposers.length),
  /** As interleave's: the lists that offered each record of the result (explain only). */
  offered?: Map<string, number[]>,
): Promise<Candidate[]> {
  const depths = proposers.map(() => first);
  const lists = await Promise.all(proposers.map((propose, j) => propose(depths[j] as number)));
  for (;;) {
    const { out, exhausted } = interleave(lists, limit, offered);
    const deeper = lists.flatMap((list, j) =>
      exhausted[j] && list.length >= (depths[j] as number) && (depths[j] as number) < limit ? [j] : [],
    );
    if (deeper.length === 0) return out;
    await Promise.all(
      deeper.map(async (j) => {
        const depth = Math.min(limit, 2 * (depths[j] as number));
        depths[j] = depth;
        lists[j] = await (proposers[j] as Proposer)(depth);
      }),
    );
  }
}
