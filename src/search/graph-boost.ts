// graph_boost (docs/api.md, "graph_boost and rerank"): records near an anchor node of a
// graph view rank higher. The spec fixes only what the response reports (anchor, depth, weight,
// matched_records, edge_count); the rest is decided here:
// - The graph is the named (or only) active graph view's edges, walkable by the same rule as
//   graph views (src/search/graph.ts), followed in both directions from the anchor up to depth
//   links. edge_count counts the distinct links followed.
// - A candidate matches when its entity or its key names a reached node; its distance is the
//   fewest links from the anchor to that node (the anchor itself is 0).
// - The boost is relative, so it works on any rank_score scale (a rank expression's or a fused
//   RRF value): value + |value| * weight / (1 + distance). A match never moves down, a nearer
//   match moves up more, and a record with rank_score 0 gains nothing.
// - Applied to the whole ranked pool before the k cut (and before rerank); the pool is re-sorted
//   by the boosted value, ties keeping their earlier order, and score is measured after it.
import type { GraphBoost, GraphMapping, InstalledCatalog } from "../catalog/index.js";
import type { Db } from "../platform/db/index.js";
import { type GraphLink, loadLinks } from "./graph.js";
import type { Candidate } from "./types.js";

export interface Scored {
  candidate: Candidate;
  rank_score: number;
}

export interface GraphBoostReport {
  anchor: string;
  depth: number;
  weight: number;
  matched_records: number;
  edge_count: number;
}

/** Fewest links from the anchor to every node within depth, and the links followed. */
export function nodeDistances(
  links: readonly GraphLink[],
  anchor: string,
  depth: number,
): { distance: Map<string, number>; edges: number } {
  const neighbours = new Map<string, { to: string; id: string }[]>();
  const connect = (from: string, to: string, id: string) => {
    const list = neighbours.get(from) ?? [];
    list.push({ to, id });
    neighbours.set(from, list);
  };
  for (const link of links) {
    connect(link.subject, link.object, link.id);
    connect(link.object, link.subject, link.id);
  }
  const distance = new Map<string, number>([[anchor, 0]]);
  const followed = new Set<string>();
  let frontier = [anchor];
  for (let d = 1; d <= depth && frontier.length > 0; d++) {
    const next: string[] = [];
    for (const node of frontier) {
      for (const { to, id } of neighbours.get(node) ?? []) {
        followed.add(id);
        if (!distance.has(to)) {
          distance.set(to, d);
          next.push(to);
        }
      }
    }
    frontier = next;
  }
  return { distance, edges: followed.size };
}

/** A candidate's distance: that of its entity or key, the nearer; undefined when neither is reached. */
function candidateDistance(distance: ReadonlyMap<string, number>, candidate: Candidate): number | undefined {
  const byEntity = distance.get(candidate.entity);
  const byKey = candidate.key === null ? undefined : distance.get(candidate.key);
  const d = Math.min(byEntity ?? Number.POSITIVE_INFINITY, byKey ?? Number.POSITIVE_INFINITY);
  return Number.isFinite(d) ? d : undefined;
}

/** The boosted pool (re-sorted) and the matches counted, from the distances of reached nodes. */
export function applyGraphBoost<T extends Scored>(
  ranked: readonly T[],
  distance: ReadonlyMap<string, number>,
  weight: number,
): { ranked: T[]; matched: number } {
  let matched = 0;
  const boosted = ranked.map((r, at) => {
    const d = candidateDistance(distance, r.candidate);
    if (d === undefined) return { scored: r, at };
    matched++;
    const value = r.rank_score + (Math.abs(r.rank_score) * weight) / (1 + d);
    return { scored: { ...r, rank_score: Number.isFinite(value) ? value : Number.MAX_VALUE }, at };
  });
  boosted.sort((a, b) => b.scored.rank_score - a.scored.rank_score || a.at - b.at);
  return { ranked: boosted.map((b) => b.scored), matched };
}

/**
 * Walks the boost's graph view from the anchor and boosts the ranked pool by proximity;
 * distanceOf gives a candidate's distance (undefined: not boosted), for explain.
 */
export async function graphBoost<T extends Scored>(
  input: { db: Db; workspaceId: string; catalog: InstalledCatalog; boost: GraphBoost },
  ranked: readonly T[],
): Promise<{ ranked: T[]; report: GraphBoostReport; distanceOf: (c: Candidate) => number | undefined }> {
  const { boost, catalog } = input;
  const view = [...catalog.index.views.values()]
    .map((entry) => entry.def)
    .find(
      (def) => def.kind === "graph" && def.active && (boost.graph === undefined || def.name === boost.graph),
    );
  // The validator resolved the view against this catalog; its absence is a programming error.
  if (!view) throw new Error(`graph_boost: no active graph view ${boost.graph ?? ""}`);
  const { links } = await loadLinks({
    db: input.db,
    workspaceId: input.workspaceId,
    catalog,
    mapping: view.graph as GraphMapping,
  });
  const { distance, edges } = nodeDistances(links, boost.anchor, boost.depth);
  const result = applyGraphBoost(ranked, distance, boost.weight);
  return {
    ranked: result.ranked,
    distanceOf: (c) => candidateDistance(distance, c),
    report: {
      anchor: boost.anchor,
      depth: boost.depth,
      weight: boost.weight,
      matched_records: result.matched,
      edge_count: edges,
    },
  };
}
