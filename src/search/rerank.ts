// rerank (docs/api.md, "graph_boost and rerank"): a model alias re-judges the top results.
// Decisions where the spec leaves the shape open:
// - The judge sees the query and the text of the first top_n records of the final ranking
//   (after fusion, boost and graph_boost), each shortened from the middle like hit text.
// - The judged records come first, ordered by the judge's relevance (0..1; ties keep the earlier
//   order); their rank_score is that relevance. Records beyond top_n follow in their earlier
//   order with rank_score 0, so rank_score never rises down the list. ranking.kind becomes
//   llm_judge; score is still the min-max projection over the whole pool.
// - Any model failure (transport or unusable output) answers 503 rerank_unavailable: a search
//   never falls back silently to an order the caller did not ask for.
import type { Rerank } from "../catalog/index.js";
import { type Models, modelAppError } from "../models/index.js";
import { type Bodies, shown } from "./bodies.js";
import type { Scored } from "./graph-boost.js";
import { HIT_TEXT_CHARS, shortenMiddle } from "./shape.js";

export interface RerankReport {
  backend: string;
  top_n: number;
  model: string;
  judged_records: number;
}

/** Reranks the first top_n of the ranked pool, whose bodies (texts) were read. */
export async function rerankTop<T extends Scored>(
  input: { models: Models; rerank: Rerank; q: string; bodies: Bodies },
  ranked: readonly T[],
): Promise<{ ranked: T[]; report: RerankReport }> {
  const judged = ranked.slice(0, input.rerank.top_n);
  let result: Awaited<ReturnType<Models["rerank"]>>;
  try {
    result = await input.models.rerank(input.rerank.model, {
      query: input.q,
      documents: judged.map((r) => shortenMiddle(shown(input.bodies, r.candidate).text, HIT_TEXT_CHARS)),
    });
  } catch (error) {
    throw modelAppError(error, "rerank");
  }
  const reordered = judged
    .map((r, at) => ({ scored: { ...r, rank_score: result.relevance[at] as number }, at }))
    .sort((a, b) => b.scored.rank_score - a.scored.rank_score || a.at - b.at)
    .map((j) => j.scored);
  const rest = ranked.slice(judged.length).map((r) => ({ ...r, rank_score: 0 }));
  return {
    ranked: [...reordered, ...rest],
    report: {
      backend: result.target,
      top_n: input.rerank.top_n,
      model: input.rerank.model,
      judged_records: judged.length,
    },
  };
}
