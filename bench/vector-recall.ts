// Quality of the approximate vector proposals (issue 20): the vector list of each measured
// workspace-wide vector and hybrid request, and the vector source of each rrf request (filtered
// to one collection), is proposed as the search reads it (a vector search its whole pool, hybrid
// its first depth; through the space's HNSW index where pgvector serves),
// and the exact nearest 20 under the same filters are found by scoring every embedding.
// Recall@20 is the share of the exact top 20 in the proposed list; for hybrid also in its whole
// pool (every list's candidates carry their similarity, and hybrid ranks them all by it, so a
// near record its text or recency list offered is not lost). The fake embedder's lexical
// vectors tie often, so a proposed row counts when it is at least as similar as the exact 20th.
// Entity-scoped searches scan exactly and are left out.
import { requireCatalog } from "../src/catalog/index.js";
import { modelsResolver } from "../src/deps.js";
import type { Db } from "../src/platform/db/index.js";
import { hybridFirstDepth, propose, vectorCandidates } from "../src/search/candidates.js";
import { queryVector } from "../src/search/execute.js";
import { filterSql, Params } from "../src/search/sql.js";
import type { ModeName } from "./modes.js";
import {
  AT,
  measuredParts,
  median,
  proposeInput,
  type RecallOptions,
  recallSummary,
  round,
} from "./recall.js";
import { FAKE_MODELS_ONLY } from "./setup.js";
import type { Vocabulary } from "./vocabulary.js";

export const VECTOR_RECALL_MODES: ModeName[] = ["vector", "hybrid", "rrf"];
/** Similarities equal to the exact 20th's within float rounding count as ties. */
const TIE = 1e-6;

export interface VectorRecallFigure {
  /** Vector lists compared (requests with a non-zero query vector). */
  parts: number;
  /** How deep the list was read. */
  depth: number;
  mean: number;
  min: number;
  /** The same share in the search's whole candidate pool (hybrid: every list; vector: the list). */
  pool_mean: number;
  pool_min: number;
  /** Proposal time, ms p50: as searched and exact. */
  proposed_ms_p50: number;
  exact_ms_p50: number;
}

export async function measureVectorRecall(
  db: Db,
  workspaceId: string,
  vocabulary: Vocabulary,
  options: RecallOptions & { vectorExactRows: number },
): Promise<Partial<Record<ModeName, VectorRecallFigure>>> {
  const catalog = await requireCatalog(db, workspaceId);
  const models = modelsResolver(FAKE_MODELS_ONLY, { fakeScript: {} });
  const declarations = new Map([...catalog.index.collections].map(([id, entry]) => [id, entry.def]));
  const out: Partial<Record<ModeName, VectorRecallFigure>> = {};
  for (const mode of VECTOR_RECALL_MODES.filter((m) => options.modes.includes(m))) {
    const recalls: number[] = [];
    const poolRecalls: number[] = [];
    const times = { proposed: [] as number[], exact: [] as number[] };
    let depth = 0;
    for (const { spec, part } of measuredParts(catalog, vocabulary, options, mode)) {
      if ((part.mode !== "vector" && part.mode !== "hybrid") || part.scope.entities) continue;
      const query = await queryVector({ models }, { catalog, part, q: spec.q });
      if (!query || query.vector.every((x) => x === 0)) continue;
      depth = part.mode === "hybrid" ? hybridFirstDepth(part) : part.params.candidates;
      const input = proposeInput(
        { db, workspaceId, catalog },
        { spec, part },
        {
          query,
          exhaustiveText: false,
          vectorExactRows: options.vectorExactRows,
        },
      );
      let t0 = performance.now();
      const proposed = await vectorCandidates(input, depth);
      times.proposed.push(performance.now() - t0);
      // Ordered by the untyped column, which no HNSW index is built over: every row is scored.
      const params = new Params();
      const where = filterSql(params, { workspaceId, part, declarations });
      const vector = params.add(JSON.stringify(query.vector));
      t0 = performance.now();
      const { rows: exact } = await db.query<{ similarity: number }>(
        `SELECT 1 - (e.embedding <=> ${vector}::vector) AS similarity
           FROM records r JOIN embeddings e ON e.workspace_id = r.workspace_id AND e.record_id = r.id
             AND e.space = ${params.add(query.space)}
           WHERE ${where} AND vector_norm(e.embedding) > 0
           ORDER BY e.embedding <=> ${vector}::vector LIMIT ${AT}`,
        params.values,
      );
      times.exact.push(performance.now() - t0);
      const last = exact[exact.length - 1];
      if (!last) continue;
      const floor = Number(last.similarity) - TIE;
      const share = (candidates: { similarity?: number | null }[]) =>
        Math.min(candidates.filter((c) => Number(c.similarity ?? Number.NaN) >= floor).length, exact.length) /
        exact.length;
      recalls.push(share(proposed));
      poolRecalls.push(part.mode === "hybrid" ? share((await propose(input)).candidates) : share(proposed));
    }
    const pool = recallSummary(poolRecalls);
    out[mode] = {
      ...recallSummary(recalls),
      pool_mean: pool.mean,
      pool_min: pool.min,
      depth,
      proposed_ms_p50: round(median(times.proposed), 2),
      exact_ms_p50: round(median(times.exact), 2),
    };
  }
  return out;
}
