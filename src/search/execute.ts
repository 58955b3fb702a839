// Search execution: propose candidates per search, rank them with the rank expression (or
// order_by in structured mode), fuse sources by RRF, shape hits, render, bound the response.
import {
  type CombinedSearchSpec,
  type InstalledCatalog,
  type RankNode,
  readsAge,
  SCORE_SEMANTICS,
  type SearchMode,
  type SearchPart,
  type SearchSpec,
  targetProfiles,
} from "../catalog/index.js";
import { type Models, modelAppError } from "../models/index.js";
import type { Db } from "../platform/db/index.js";
import { storageLayout } from "../platform/db/index.js";
import { AppError } from "../platform/errors.js";
import { markAccessed } from "../records/index.js";
import { readBodies, shown } from "./bodies.js";
import { type Proposal, propose } from "./candidates.js";
import type { QueryVector } from "./candidates-sql.js";
import {
  type Explain,
  type ExplainedSource,
  fusedExplain,
  proposedBy,
  rankedExplain,
  structuredExplain,
  wrapRank,
} from "./explain.js";
import { applyBoost, type FusedHit, fuseRrf } from "./fusion.js";
import { type GraphBoostReport, graphBoost, type Scored } from "./graph-boost.js";
import { displayScoreNames, renderRows } from "./prompt-rows.js";
import { evaluateRank, explainRank, minMaxScores, orderByRank, type RankTree } from "./rank-eval.js";
import { type RerankReport, rerankTop } from "./rerank.js";
import { shapeHit } from "./shape.js";
import type { Candidate } from "./types.js";

export interface SearchDeps {
  db: Db;
  models: (catalog: InstalledCatalog) => Models;
  renderBudgetTokens: number;
  maxResponseBytes: number;
  /** Workspace-wide vector searches scan exactly a workspace holding at most this many vectors of the space. */
  vectorExactRows: number;
  /** Score every text match instead of reading the frequency tiers (the bench's exact reference). */
  exhaustiveText?: boolean;
  /** Told each completed search's mode (`sources` for a combined one) and duration (metrics). */
  onSearch?: (mode: SearchMode | "sources", seconds: number) => void;
}

interface Ranked extends Scored {
  source_ranks?: Record<string, number>;
  /** With explain: the hit's explanation (src/search/explain.ts), built if it is shown. */
  explain?: Explain;
}

/** What explaining one search part needs (present only when the search asks for explain). */
interface ExplainPart {
  part: SearchPart;
  proposal: Proposal | undefined;
  catalog: InstalledCatalog;
}

/** The query embedding of the part's profile, when its mode needs one. */
/**
 * The query vectors of one request, by embedding alias: sources of one profile (or of profiles
 * sharing an alias) embed `q` once between them.
 */
export type QueryVectors = Map<string, Promise<number[]>>;

export async function queryVector(
  deps: Pick<SearchDeps, "models">,
  catalog: InstalledCatalog,
  part: SearchPart,
  q: string | undefined,
  vectors: QueryVectors = new Map(),
): Promise<QueryVector | undefined> {
  if (part.mode !== "vector" && part.mode !== "hybrid") return undefined;
  const alias = catalog.index.searchProfiles.get(part.profile)?.def.embedding;
  const def = alias ? catalog.index.models.def.aliases[alias] : undefined;
  if (!alias || def?.kind !== "embedding") return undefined;
  let vector = vectors.get(alias);
  if (!vector) {
    vector = deps
      .models(catalog)
      .embed(alias, [q ?? ""])
      .then(([first]) => first as number[]);
    vectors.set(alias, vector);
  }
  try {
    return { space: def.space, vector: await vector };
  } catch (error) {
    throw modelAppError(error, "embeddings");
  }
}

function formulaOf(catalog: InstalledCatalog, part: SearchPart): RankNode | undefined {
  if (part.mode === "structured") return undefined;
  return part.rank ?? catalog.index.rank.formulas[part.mode];
}

/** Orders a pool by the rank expression, best first; explained by the same (traced) walk. */
function rankPool(pool: Candidate[], formula: RankNode, now: Date, explain?: ExplainPart): Ranked[] {
  if (explain) {
    const explained = explainRank(formula, pool, now);
    return orderByRank(pool, explained.values).map((i) => {
      const candidate = pool[i] as Candidate;
      const lists = proposedBy(explain.part, explain.proposal, candidate);
      return {
        candidate,
        rank_score: explained.values[i] as number,
        explain: rankedExplain(candidate, now, lists, () => explained.tree(i)),
      };
    });
  }
  const values = evaluateRank(formula, pool, now);
  return orderByRank(pool, values).map((i) => ({
    candidate: pool[i] as Candidate,
    rank_score: values[i] as number,
  }));
}

/** A structured pool, in its order_by order as proposed. */
function structuredPool(pool: Candidate[], now: Date, explain?: ExplainPart): Ranked[] {
  if (!explain) return pool.map((candidate) => ({ candidate, rank_score: 0 }));
  const { part, catalog } = explain;
  return pool.map((candidate) => ({
    candidate,
    rank_score: 0,
    explain: structuredExplain(candidate, now, part.order_by, catalog),
  }));
}

/** Each source ranked and cut to its own k, then fused by RRF and boosted (rules 6-8). */
function fuseSources(
  spec: CombinedSearchSpec,
  catalog: InstalledCatalog,
  proposals: Proposal[],
  now: Date,
): Ranked[] {
  const byId = new Map<string, Candidate>();
  // With explain: each source's ranked entries, whose explanations the fused ones build on.
  const explained: ExplainedSource[] | undefined = spec.explain ? [] : undefined;
  const lists = spec.sources.map((source, i) => {
    const pool = proposals[i]?.candidates ?? [];
    const formula = formulaOf(catalog, source);
    const explain = explained ? { part: source, proposal: proposals[i], catalog } : undefined;
    // A structured source is ranked by its order_by, as proposed.
    const entries = (
      formula ? rankPool(pool, formula, now, explain) : structuredPool(pool, now, explain)
    ).slice(0, source.k);
    explained?.push({
      name: source.name,
      weight: source.weight,
      entries: new Map(entries.map((e) => [e.candidate.id, e])),
    });
    const ranked = entries.map((e) => e.candidate);
    for (const candidate of ranked) byId.set(candidate.id, candidate);
    return { name: source.name, weight: source.weight, ids: ranked.map((c) => c.id) };
  });
  let fused = fuseRrf(lists, spec.fuse.rank_constant);
  // With explain: each record's fused value before the boost, and the boost's explanation.
  let unboosted: Map<string, number> | undefined;
  let boostTree: ((id: string) => () => RankTree) | undefined;
  if (spec.boost) {
    const pool = fused.map((f) => byId.get(f.id) as Candidate);
    if (explained) {
      const boost = explainRank(spec.boost, pool, now);
      const at = new Map(fused.map((f, i) => [f.id, i]));
      unboosted = new Map(fused.map((f) => [f.id, f.rank_score]));
      boostTree = (id) => () => boost.tree(at.get(id) as number);
      fused = applyBoost(fused, boost.values);
    } else fused = applyBoost(fused, evaluateRank(spec.boost, pool, now));
  }
  const hits: Ranked[] = fused.map((f) => ({
    candidate: byId.get(f.id) as Candidate,
    rank_score: f.rank_score,
    source_ranks: f.source_ranks,
  }));
  if (explained) {
    hits.forEach((hit, i) => {
      const f = fused[i] as FusedHit;
      const before = unboosted?.get(f.id) ?? f.rank_score;
      hit.explain = fusedExplain(f, before, explained, spec.fuse.rank_constant, boostTree?.(f.id));
    });
  }
  return hits;
}

export async function executeSearch(
  deps: SearchDeps,
  workspaceId: string,
  catalog: InstalledCatalog,
  spec: SearchSpec,
) {
  const started = performance.now();
  const now = new Date();
  const parts: (SearchPart & { name?: string })[] = spec.sources ?? [spec];
  // A fusion boost ranks every source's candidates.
  const boost = spec.sources ? spec.boost : undefined;
  const boostReadsAccess = boost !== undefined && readsAge(boost, "last_accessed");
  // Sources are independent searches: a server pool runs them at once (PGlite queues them).
  const vectors: QueryVectors = new Map();
  const proposals: Proposal[] = await Promise.all(
    parts.map(async (part) => {
      const query = await queryVector(deps, catalog, part, spec.q, vectors);
      const formula = formulaOf(catalog, part);
      return propose({
        db: deps.db,
        workspaceId,
        catalog,
        part,
        q: spec.q,
        query,
        exhaustiveText: deps.exhaustiveText ?? false,
        vectorExactRows: deps.vectorExactRows,
        // explain reports every age, last_accessed's included.
        lastAccessed:
          spec.explain === true ||
          boostReadsAccess ||
          (formula !== undefined && readsAge(formula, "last_accessed")),
        ...(spec.explain ? { explain: true } : {}),
      });
    }),
  );
  const formula = spec.sources ? undefined : formulaOf(catalog, spec);
  let kind: "rank_expression" | "rrf" | "structured" | "llm_judge" = spec.sources
    ? "rrf"
    : formula
      ? "rank_expression"
      : "structured";
  const explain = spec.explain && !spec.sources ? { part: spec, proposal: proposals[0], catalog } : undefined;
  let ranked: Ranked[];
  if (spec.sources) ranked = fuseSources(spec, catalog, proposals, now);
  else if (formula) ranked = rankPool(proposals[0]?.candidates ?? [], formula, now, explain);
  else ranked = structuredPool(proposals[0]?.candidates ?? [], now, explain);
  let graphBoostReport: GraphBoostReport | undefined;
  if (spec.graph_boost) {
    const boost = spec.graph_boost;
    const boosted = await graphBoost({ db: deps.db, workspaceId, catalog, boost }, ranked);
    ranked = boosted.ranked;
    graphBoostReport = boosted.report;
    if (spec.explain) {
      ranked = ranked.map((r) => {
        const distance = boosted.distanceOf(r.candidate);
        if (distance === undefined) return r;
        const node = (rank: RankTree) => ({
          op: "graph_boost",
          weight: boost.weight,
          distance,
          value: r.rank_score,
          args: [rank],
        });
        return { ...r, explain: wrapRank(r.explain, node) };
      });
    }
  }
  // The shown records (the first k after rerank, so of the first max(k, top_n) before it).
  const read = await readBodies(deps.db, workspaceId, ranked, Math.max(spec.k, spec.rerank?.top_n ?? 0));
  ranked = read.ranked;
  let rerankReport: RerankReport | undefined;
  if (spec.rerank) {
    const rerank = spec.rerank;
    const judgedIds = spec.explain
      ? new Set(ranked.slice(0, rerank.top_n).map((r) => r.candidate.id))
      : undefined;
    const judged = await rerankTop(
      { models: deps.models(catalog), rerank, q: spec.q as string, bodies: read.bodies },
      ranked,
    );
    ranked = judged.ranked;
    rerankReport = judged.report;
    kind = "llm_judge";
    if (judgedIds) {
      ranked = ranked.map((r) => {
        const node = (rank: RankTree) => ({
          op: "rerank",
          model: rerank.model,
          judged: judgedIds.has(r.candidate.id),
          value: r.rank_score,
          args: [rank],
        });
        return { ...r, explain: wrapRank(r.explain, node) };
      });
    }
  }
  // Scores span the whole pool (every candidate, or every merged record), after every boost.
  const scores = kind === "structured" ? undefined : minMaxScores(ranked.map((r) => r.rank_score));
  const top = ranked.slice(0, spec.k).map((r) => ({ ...r, candidate: shown(read.bodies, r.candidate) }));
  const hits = top.map((r, i) => {
    const declaration = catalog.index.collections.get(
      `${r.candidate.collection}@${r.candidate.collection_version}`,
    )?.def;
    return {
      id: r.candidate.id,
      rank: i + 1,
      score: scores ? (scores[i] as number) : null,
      ...(scores ? { rank_score: r.rank_score } : {}),
      ...(r.source_ranks ? { source_ranks: r.source_ranks } : {}),
      ...(declaration ? shapeHit(r.candidate, spec, declaration) : {}),
      ...(r.explain ? { explain: r.explain() } : {}),
    };
  });
  const displayScores = displayScoreNames(catalog.index);
  const render = spec.render
    ? renderRows(
        top.map((r) => r.candidate),
        { budgetTokens: deps.renderBudgetTokens, fence: spec.fence, displayScores },
      )
    : undefined;
  const layout = storageLayout(deps.db);
  const response = {
    hits,
    ranking: kind === "structured" ? { kind, scored: false } : { kind, scored: true, ...SCORE_SEMANTICS },
    rendered: render?.rendered ?? null,
    truncated: render?.truncated ?? false,
    backend: parts.map((part, i) => ({
      name: part.profile,
      layout,
      candidate_count: proposals[i]?.count ?? 0,
      ...(part.name ? { source: part.name } : {}),
    })),
    profiles: targetProfiles(
      parts.flatMap((part) => part.targets),
      catalog.index,
    ),
    ...(rerankReport ? { rerank: rerankReport } : {}),
    ...(graphBoostReport ? { graph_boost: graphBoostReport } : {}),
  };
  const bytes = Buffer.byteLength(JSON.stringify(response));
  if (bytes > deps.maxResponseBytes) {
    throw new AppError(
      "response_too_large",
      `the response would be ${bytes} bytes (limit ${deps.maxResponseBytes}); reduce k, include, fields or annotations`,
    );
  }
  await markAccessed(
    deps.db,
    workspaceId,
    hits.map((h) => h.id),
  );
  deps.onSearch?.(spec.sources ? "sources" : spec.mode, (performance.now() - started) / 1000);
  return response;
}
