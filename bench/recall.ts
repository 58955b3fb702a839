// Ranking quality of the text proposals (issue 20): the text part of each measured text, hybrid
// and rrf request is proposed twice, from the frequency tiers (src/search/text-tiers.ts) and by
// scoring every match, and recall@20 is the share of the exhaustive ts_rank_cd top 20 that the
// tiered proposal's top 20 holds. A hybrid part's text list is proposed as deep as hybrid first
// reads it (a share of the pool, src/search/candidates.ts). Proposals only: a whole search would
// mark its hits accessed, and the second run would rank by a changed last_accessed.
import { requireCatalog } from "../src/catalog/index.js";
import { searchParts, validateSearchSpec } from "../src/catalog/search-spec.js";
import type { Db } from "../src/platform/db/index.js";
import { hybridFirstDepth, textCandidates } from "../src/search/candidates.js";
import { type ModeName, requestMakers } from "./modes.js";
import { requests } from "./search.js";
import type { Vocabulary } from "./vocabulary.js";

export const RECALL_MODES: ModeName[] = ["text", "hybrid", "rrf"];
export const AT = 20;

export interface RecallFigure {
  /** Text parts compared (requests whose exhaustive top is not empty). */
  parts: number;
  /** Mean and worst recall@20. */
  mean: number;
  min: number;
  /** Proposal time, ms p50: tiered and exhaustive. */
  tiered_ms_p50: number;
  exhaustive_ms_p50: number;
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
export const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits;

/** The requests measured for recall: the bench's own, by seed, corpus size and mode. */
export interface RecallOptions {
  seed: number;
  records: number;
  requests: number;
  modes: ModeName[];
}

export async function measureRecall(
  db: Db,
  workspaceId: string,
  vocabulary: Vocabulary,
  options: RecallOptions,
): Promise<Partial<Record<ModeName, RecallFigure>>> {
  const catalog = await requireCatalog(db, workspaceId);
  const makers = requestMakers(vocabulary, options.records);
  const out: Partial<Record<ModeName, RecallFigure>> = {};
  for (const mode of RECALL_MODES.filter((m) => options.modes.includes(m))) {
    const recalls: number[] = [];
    const times = { tiered: [] as number[], exhaustive: [] as number[] };
    for (const request of requests(makers[mode], options.seed, `measure:${mode}`, options.requests)) {
      const spec = validateSearchSpec(request.body, catalog.index, { maxQueryChars: 10_000 });
      for (const part of searchParts(spec).filter((p) => p.mode === "text" || p.mode === "hybrid")) {
        const propose = async (exhaustiveText: boolean) => {
          const input = { db, workspaceId, catalog, part, q: spec.q, query: undefined, exhaustiveText };
          const t0 = performance.now();
          const depth = part.mode === "hybrid" ? hybridFirstDepth(part) : part.params.candidates;
          const found = await textCandidates(input, depth);
          times[exhaustiveText ? "exhaustive" : "tiered"].push(performance.now() - t0);
          return found.slice(0, AT).map((c) => c.id);
        };
        const exact = await propose(true);
        const tiered = new Set(await propose(false));
        if (exact.length === 0) continue;
        recalls.push(exact.filter((id) => tiered.has(id)).length / exact.length);
      }
    }
    out[mode] = {
      parts: recalls.length,
      mean: round(recalls.reduce((a, b) => a + b, 0) / Math.max(1, recalls.length), 4),
      min: round(Math.min(...recalls), 4),
      tiered_ms_p50: round(median(times.tiered), 2),
      exhaustive_ms_p50: round(median(times.exhaustive), 2),
    };
  }
  return out;
}
