// Ranking quality of the text proposals (issues 20, 53): the text part of each measured text,
// hybrid and rrf request is proposed twice, from the cells of the text index
// (src/search/text-walk.ts) and by scoring every match (brute-force BM25), and recall@20 is the
// share of the brute-force top 20 that the cells' proposal's top 20 holds. A hybrid part's text list is proposed as deep as hybrid first
// reads it (a share of the pool, src/search/candidates.ts). Proposals only: a whole search would
// mark its hits accessed, and the second run would rank by a changed last_accessed.
import {
  type InstalledCatalog,
  requireCatalog,
  type SearchPart,
  type SearchSpec,
  searchParts,
  validateSearchSpec,
} from "../src/catalog/index.js";
import type { Db } from "../src/platform/db/index.js";
import { hybridFirstDepth, type ProposeInput, textCandidates } from "../src/search/candidates.js";
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
  /** Proposal time, ms p50: from the cells and exhaustive. */
  cells_ms_p50: number;
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

/** The search parts of one mode's measured requests (the bench's own, by seed and corpus size). */
export function measuredParts(
  catalog: InstalledCatalog,
  vocabulary: Vocabulary,
  options: RecallOptions,
  mode: ModeName,
): { spec: SearchSpec; part: SearchPart }[] {
  const make = requestMakers(vocabulary, options.records)[mode];
  return requests(make, options.seed, `measure:${mode}`, options.requests).flatMap((request) => {
    const spec = validateSearchSpec(request.body, catalog.index, { maxQueryChars: 10_000 });
    return searchParts(spec).map((part) => ({ spec, part }));
  });
}

/** What proposing a measured part takes: the search's own input for it. */
export function proposeInput(
  target: { db: Db; workspaceId: string; catalog: InstalledCatalog },
  measured: { spec: SearchSpec; part: SearchPart },
  reads: Pick<ProposeInput, "query" | "exhaustiveText" | "vectorExactRows">,
): ProposeInput {
  return { ...target, part: measured.part, q: measured.spec.q, ...reads };
}

/** How many parts were compared, and their mean and worst recall. */
export function recallSummary(recalls: number[]): { parts: number; mean: number; min: number } {
  return {
    parts: recalls.length,
    mean: round(recalls.reduce((a, b) => a + b, 0) / Math.max(1, recalls.length), 4),
    min: round(Math.min(...recalls), 4),
  };
}

export async function measureRecall(
  db: Db,
  workspaceId: string,
  vocabulary: Vocabulary,
  options: RecallOptions,
): Promise<Partial<Record<ModeName, RecallFigure>>> {
  const catalog = await requireCatalog(db, workspaceId);
  const out: Partial<Record<ModeName, RecallFigure>> = {};
  for (const mode of RECALL_MODES.filter((m) => options.modes.includes(m))) {
    const recalls: number[] = [];
    const times = { cells: [] as number[], exhaustive: [] as number[] };
    for (const { spec, part } of measuredParts(catalog, vocabulary, options, mode)) {
      if (part.mode !== "text" && part.mode !== "hybrid") continue;
      const propose = async (exhaustiveText: boolean) => {
        // No query vector: the text list alone, which never reads vectorExactRows.
        const input = proposeInput(
          { db, workspaceId, catalog },
          { spec, part },
          {
            query: undefined,
            exhaustiveText,
            vectorExactRows: 0,
          },
        );
        const t0 = performance.now();
        const depth = part.mode === "hybrid" ? hybridFirstDepth(part) : part.params.candidates;
        const found = await textCandidates(input, depth);
        times[exhaustiveText ? "exhaustive" : "cells"].push(performance.now() - t0);
        return found.slice(0, AT).map((c) => c.id);
      };
      const exact = await propose(true);
      const walked = new Set(await propose(false));
      if (exact.length === 0) continue;
      recalls.push(exact.filter((id) => walked.has(id)).length / exact.length);
    }
    out[mode] = {
      ...recallSummary(recalls),
      cells_ms_p50: round(median(times.cells), 2),
      exhaustive_ms_p50: round(median(times.exhaustive), 2),
    };
  }
  return out;
}
