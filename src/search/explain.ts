// `explain: true` (docs/api.md, "Explaining a ranking"): why each hit is where it is.
// Built only when a search asks for it, and only for the hits shown (each is a closure until
// then). Every figure comes from the computation that ranked the hit: the rank evaluator's traced
// walk (rank-eval.ts explainRank), fusion's contributions, the boosts' own values; nothing here
// re-derives a ranking.
//
// Shape of a hit's `explain`:
//   signals      what the rank leaves read: similarity and text_match (null when the search did
//                not compute them), age_hours of created_at, occurred_at and last_accessed (a
//                never-returned record's counts from created_at), and the stored scores
//   rank         the rank expression with each node's value (rank-eval.ts RankTree); its root
//                value is the hit's rank_score. Wrappers above the expression:
//                  {op: "rrf", rank_constant, value, args: [{source, source_rank, weight, value,
//                    rank | order_by}]}            sources fused (value: the fused value)
//                  {op: "boost", value, args: [rrf, boost expression]}   fused × max(0, boost)
//                  {op: "graph_boost", weight, distance, value, args: [rank]}
//                  {op: "rerank", model, judged, value, args: [rank]}    the judge's relevance
//   order_by     structured: [{field, direction, value}], the values the rows were sorted by
//   proposed_by  the candidate lists that offered the hit: vector, text, recent or structured
//   source_ranks with sources: the hit's 1-based rank in each source that found it
import type { InstalledCatalog, OrderBy, SearchPart } from "../catalog/index.js";
import type { Proposal, ProposalList } from "./candidates.js";
import { rrfContribution } from "./fusion.js";
import { candidateSignals, type RankTree, type Signals } from "./rank-eval.js";
import type { Candidate } from "./types.js";

export type { RankTree } from "./rank-eval.js";

export interface OrderValue {
  field: string;
  direction: "asc" | "desc";
  value: unknown;
}

export interface HitExplain {
  signals: Signals;
  rank?: RankTree;
  order_by?: OrderValue[];
  proposed_by: ProposalList[];
  source_ranks?: Record<string, number>;
}

/** A hit's explanation, built when the hit is shown. */
export type Explain = () => HitExplain;

const LIST_ORDER: readonly ProposalList[] = ["vector", "text", "recent", "structured"];

/** The lists that offered a candidate of a part's proposal. */
export function proposedBy(
  part: SearchPart,
  proposal: Proposal | undefined,
  candidate: Candidate,
): ProposalList[] {
  if (part.mode !== "hybrid") return [part.mode];
  return proposal?.proposedBy?.get(candidate.id) ?? [];
}

/** A candidate ranked by a rank expression: `tree` is its explained expression. */
export function rankedExplain(
  candidate: Candidate,
  now: Date,
  lists: ProposalList[],
  tree: () => RankTree,
): Explain {
  return () => ({ signals: candidateSignals(candidate, now), rank: tree(), proposed_by: lists });
}

/**
 * A structured candidate: the values its rows were sorted by (read with the proposal,
 * Candidate.order_values); a datetime comes back as an ISO 8601 UTC string.
 */
export function structuredExplain(
  candidate: Candidate,
  now: Date,
  orderBy: readonly OrderBy[],
  catalog: InstalledCatalog,
): Explain {
  return () => {
    const declaration = catalog.index.collections.get(
      `${candidate.collection}@${candidate.collection_version}`,
    )?.def;
    const order_by = orderBy.map((order, i) => {
      let value = candidate.order_values?.[i] ?? null;
      const field =
        declaration && Object.hasOwn(declaration.fields, order.field)
          ? declaration.fields[order.field]
          : undefined;
      if (field?.type === "datetime" && typeof value === "string") value = new Date(value).toISOString();
      return { field: order.field, direction: order.direction ?? "asc", value };
    });
    return { signals: candidateSignals(candidate, now), order_by, proposed_by: ["structured"] };
  };
}

/** The explanation with its rank put under a wrapper node (a boost, a rerank). */
export function wrapRank(
  inner: Explain | undefined,
  wrap: (rank: RankTree) => RankTree,
): Explain | undefined {
  if (!inner) return undefined;
  return () => {
    const explained = inner();
    return explained.rank ? { ...explained, rank: wrap(explained.rank) } : explained;
  };
}

/** A source of a fused search, as explain reads it. */
export interface ExplainedSource {
  name: string;
  weight: number;
  /** The source's ranked entries (cut to its k) that carry an explanation, by record id. */
  entries: ReadonlyMap<string, { explain?: Explain }>;
}

/**
 * A fused hit (rules 6-8): the rrf node over the sources that found it, each with its own
 * explained rank (or order_by), under the boost when there is one. Signals are the first
 * source's (in request order) that found the record, with a query signal it lacks taken from
 * the next that computed it.
 */
export function fusedExplain(
  hit: { id: string; rank_score: number; source_ranks: Record<string, number> },
  fusedValue: number,
  sources: readonly ExplainedSource[],
  rankConstant: number,
  boost?: () => RankTree,
): Explain {
  return () => {
    const found = sources.flatMap((source) => {
      const explained = source.entries.get(hit.id)?.explain?.();
      const rank = hit.source_ranks[source.name];
      return explained && rank !== undefined ? [{ source, rank, explained }] : [];
    });
    const [first, ...rest] = found.map((f) => f.explained.signals);
    const signals = { ...(first as Signals) };
    for (const other of rest) {
      signals.similarity ??= other.similarity;
      signals.text_match ??= other.text_match;
    }
    const lists = new Set(found.flatMap((f) => f.explained.proposed_by));
    const rrf: RankTree = {
      op: "rrf",
      rank_constant: rankConstant,
      value: fusedValue,
      args: found.map(({ source, rank, explained }) => ({
        source: source.name,
        source_rank: rank,
        weight: source.weight,
        value: rrfContribution(source.weight, rankConstant, rank),
        ...(explained.rank ? { rank: explained.rank } : { order_by: explained.order_by }),
      })),
    };
    return {
      signals,
      rank: boost ? { op: "boost", value: hit.rank_score, args: [rrf, boost()] } : rrf,
      proposed_by: LIST_ORDER.filter((list) => lists.has(list)),
      source_ranks: hit.source_ranks,
    };
  };
}
