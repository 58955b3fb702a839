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
import { type Bodies, readBodies, shown } from "./bodies.js";
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

/**
 * The query vectors of one request, by embedding alias: sources of one profile (or of profiles
 * sharing an alias) embed `q` once between them.
 */
export type QueryVectors = Map<string, Promise<number[]>>;

/** The query embedding of the part's profile, when its mode needs one. */
export async function queryVector(
  deps: Pick<SearchDeps, "models">,
  query: { catalog: InstalledCatalog; part: SearchPart; q: string | undefined; vectors?: QueryVectors },
): Promise<QueryVector | undefined> {
  const { catalog, part, q, vectors = new Map() } = query;
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
function rankPool(
  pool: Candidate[],
  rank: { formula: RankNode; now: Date; explain: ExplainPart | undefined },
): Ranked[] {
  const { formula, now, explain } = rank;
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
  pools: { catalog: InstalledCatalog; proposals: Proposal[]; now: Date },
): Ranked[] {
  const { catalog, proposals, now } = pools;
  const byId = new Map<string, Candidate>();
  // With explain: each source's ranked entries, whose explanations the fused ones build on.
  const explained: ExplainedSource[] | undefined = spec.explain ? [] : undefined;
  const lists = spec.sources.map((source, i) => {
    const pool = proposals[i]?.candidates ?? [];
    const formula = formulaOf(catalog, source);
    const explain = explained ? { part: source, proposal: proposals[i], catalog } : undefined;
    // A structured source is ranked by its order_by, as proposed.
    const entries = (
      formula ? rankPool(pool, { formula, now, explain }) : structuredPool(pool, now, explain)
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

/** One search: the workspace, its installed catalog and the validated spec. */
export interface SearchRequest {
  workspaceId: string;
  catalog: InstalledCatalog;
  spec: SearchSpec;
}

type RankingKind = "rank_expression" | "rrf" | "structured" | "llm_judge";

/** Each part's candidates. Sources are independent searches: a server pool runs them at once (PGlite queues them). */
function proposeParts(deps: SearchDeps, search: SearchRequest, parts: SearchPart[]): Promise<Proposal[]> {
  const { workspaceId, catalog, spec } = search;
  // A fusion boost ranks every source's candidates.
  const boost = spec.sources ? spec.boost : undefined;
  const boostReadsAccess = boost !== undefined && readsAge(boost, "last_accessed");
  const vectors: QueryVectors = new Map();
  return Promise.all(
    parts.map(async (part) => {
      const query = await queryVector(deps, { catalog, part, q: spec.q, vectors });
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
}

/** The pool ranked: sources fused by RRF, one search by its rank expression, or structured as proposed. */
function rankProposals(
  search: SearchRequest,
  proposals: Proposal[],
  now: Date,
): { ranked: Ranked[]; kind: RankingKind } {
  const { catalog, spec } = search;
  if (spec.sources) return { ranked: fuseSources(spec, { catalog, proposals, now }), kind: "rrf" };
  const formula = formulaOf(catalog, spec);
  const explain = spec.explain ? { part: spec, proposal: proposals[0], catalog } : undefined;
  const pool = proposals[0]?.candidates ?? [];
  return formula
    ? { ranked: rankPool(pool, { formula, now, explain }), kind: "rank_expression" }
    : { ranked: structuredPool(pool, now, explain), kind: "structured" };
}

/** graph_boost applied to the ranked pool; with explain, each boosted hit's rank wrapped in its node. */
async function boostByGraph(
  deps: SearchDeps,
  search: SearchRequest,
  ranked: Ranked[],
): Promise<{ ranked: Ranked[]; report?: GraphBoostReport }> {
  const { workspaceId, catalog, spec } = search;
  const boost = spec.graph_boost;
  if (!boost) return { ranked };
  const boosted = await graphBoost({ db: deps.db, workspaceId, catalog, boost }, ranked);
  if (!spec.explain) return { ranked: boosted.ranked, report: boosted.report };
  const explained = boosted.ranked.map((r) => {
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
  return { ranked: explained, report: boosted.report };
}

/** rerank's model judges the top_n; with explain, each hit's rank wrapped in a node saying whether it was judged. */
async function rerankByModel(
  deps: SearchDeps,
  search: SearchRequest,
  read: { ranked: Ranked[]; bodies: Bodies },
): Promise<{ ranked: Ranked[]; report?: RerankReport }> {
  const { catalog, spec } = search;
  const rerank = spec.rerank;
  if (!rerank) return { ranked: read.ranked };
  const judgedIds = spec.explain
    ? new Set(read.ranked.slice(0, rerank.top_n).map((r) => r.candidate.id))
    : undefined;
  const judged = await rerankTop(
    { models: deps.models(catalog), rerank, q: spec.q as string, bodies: read.bodies },
    read.ranked,
  );
  if (!judgedIds) return judged;
  const explained = judged.ranked.map((r) => {
    const node = (rank: RankTree) => ({
      op: "rerank",
      model: rerank.model,
      judged: judgedIds.has(r.candidate.id),
      value: r.rank_score,
      args: [rank],
    });
    return { ...r, explain: wrapRank(r.explain, node) };
  });
  return { ranked: explained, report: judged.report };
}

/** The first k hits, shaped by the spec; scores span the whole pool (every candidate, or every merged record), after every boost. */
function shapeHits(search: SearchRequest, pool: { ranked: Ranked[]; bodies: Bodies; kind: RankingKind }) {
  const { catalog, spec } = search;
  const { ranked, bodies, kind } = pool;
  const scores = kind === "structured" ? undefined : minMaxScores(ranked.map((r) => r.rank_score));
  const top = ranked.slice(0, spec.k).map((r) => ({ ...r, candidate: shown(bodies, r.candidate) }));
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
  return { hits, shown: top.map((r) => r.candidate) };
}

/** Refuses a response larger than the deployment allows (response_too_large). */
function checkResponseSize(response: unknown, maxBytes: number): void {
  const bytes = Buffer.byteLength(JSON.stringify(response));
  if (bytes > maxBytes) {
    throw new AppError(
      "response_too_large",
      `the response would be ${bytes} bytes (limit ${maxBytes}); reduce k, include, fields or annotations`,
    );
  }
}

export async function executeSearch(deps: SearchDeps, search: SearchRequest) {
  const started = performance.now();
  const now = new Date();
  const { workspaceId, catalog, spec } = search;
  const parts: (SearchPart & { name?: string })[] = spec.sources ?? [spec];
  const proposals = await proposeParts(deps, search, parts);
  const pool = rankProposals(search, proposals, now);
  const boosted = await boostByGraph(deps, search, pool.ranked);
  // The shown records (the first k after rerank, so of the first max(k, top_n) before it).
  const read = await readBodies(deps.db, {
    workspaceId,
    ranked: boosted.ranked,
    count: Math.max(spec.k, spec.rerank?.top_n ?? 0),
  });
  const judged = await rerankByModel(deps, search, read);
  const kind: RankingKind = spec.rerank ? "llm_judge" : pool.kind;
  const { hits, shown } = shapeHits(search, { ranked: judged.ranked, bodies: read.bodies, kind });
  const render = spec.render
    ? renderRows(shown, {
        budgetTokens: deps.renderBudgetTokens,
        fence: spec.fence,
        displayScores: displayScoreNames(catalog.index),
      })
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
    ...(judged.report ? { rerank: judged.report } : {}),
    ...(boosted.report ? { graph_boost: boosted.report } : {}),
  };
  checkResponseSize(response, deps.maxResponseBytes);
  await markAccessed(
    deps.db,
    workspaceId,
    hits.map((h) => h.id),
  );
  deps.onSearch?.(spec.sources ? "sources" : spec.mode, (performance.now() - started) / 1000);
  return response;
}
