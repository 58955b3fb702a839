// What an answer may rest on (docs/api.md "`POST /answer`"): one hybrid search (k 20) over the active
// answerable collections within the request's entities and window, plus, with an anchor, the
// links of a graph walk (both directions, depth 2, 10 paths). The evidence is rendered like a
// search's rows (escaped, fenced as untrusted) and only what fits the render budget is shown.
import { collectionPlaces, type InstalledCatalog, type Place, type ViewDef } from "../catalog/index.js";
import { AppError, validationError } from "../platform/errors.js";
import { type RowFields, rowRecords } from "../records/index.js";
import {
  displayScoreNames,
  placesSearch,
  renderRows,
  type SearchDeps,
  type SearchLimits,
  search,
  walkGraph,
} from "../search/index.js";
import type { AnswerRequest } from "./request.js";

/** docs/api.md "Limits", row answer: k 20; graph depth 2, 10 paths. */
export const ANSWER_K = 20;
const GRAPH_WALK = { direction: "both", depth: 2, limit: 10, predicates: [] as string[] } as const;
export const EVIDENCE_TAG = "evidence";

export type EvidenceDeps = SearchDeps & SearchLimits;

/**
 * The active collections declaring answerable: true, by place (collectionPlaces), or 422
 * answer_unavailable. Each place is searched on its own and the places fused (gatherEvidence);
 * the catalog refuses more profiles than a search can fuse.
 */
export function answerableCollections(catalog: InstalledCatalog): Place[] {
  const places = collectionPlaces(catalog.index, (def) => def.answerable);
  if (places.length === 0) {
    throw new AppError(
      "answer_unavailable",
      "the catalog declares no active collection with answerable: true",
    );
  }
  return places;
}

/** The graph view an anchor walks: the named active one, or the only active one. */
export function anchorGraph(catalog: InstalledCatalog, request: AnswerRequest): ViewDef | undefined {
  if (request.anchor === undefined) return undefined;
  const graphs = [...catalog.index.views.values()]
    .map((entry) => entry.def)
    .filter((def) => def.kind === "graph" && def.active);
  if (request.graph !== undefined) {
    const named = graphs.find((def) => def.name === request.graph);
    if (!named) {
      throw validationError(`no active graph view "${request.graph}"`, [
        { path: "graph", message: `no active graph view "${request.graph}"` },
      ]);
    }
    return named;
  }
  if (graphs.length === 0) {
    throw validationError("anchor needs an active graph view", [
      { path: "anchor", message: "needs an active graph view" },
    ]);
  }
  if (graphs.length > 1) {
    throw new AppError(
      "graph_ambiguous",
      `several graph views are active (${graphs
        .map((def) => def.name)
        .sort()
        .join(", ")}): name one in graph`,
    );
  }
  return graphs[0];
}

export interface Evidence {
  /** The rendered, fenced rows the model is shown ("" when there is nothing). */
  rendered: string;
  /** The ids of the rows shown, in order: the only ids an answer may cite. */
  shown: string[];
}

/** Runs the search and the walk, and renders what they found within the render budget. */
export async function gatherEvidence(
  deps: EvidenceDeps,
  workspaceId: string,
  catalog: InstalledCatalog,
  input: { request: AnswerRequest; query: string; places: Place[]; graph?: ViewDef },
): Promise<Evidence> {
  const { request } = input;
  const scope = {
    ...(request.entities ? { entities: request.entities } : {}),
    ...(request.since ? { occurred_after: request.since } : {}),
    ...(request.until ? { occurred_before: request.until } : {}),
  };
  const spec = placesSearch(input.places, { q: input.query, k: ANSWER_K, scope });
  const found = await search(deps, workspaceId, spec);
  const ids = found.hits.map((hit) => hit.id);
  if (input.graph?.graph && request.anchor !== undefined) {
    const walk = await walkGraph(
      { db: deps.db, workspaceId, catalog, mapping: input.graph.graph },
      {
        ...GRAPH_WALK,
        seed: request.anchor.trim(),
      },
    );
    ids.push(...walk.links.map((link) => link.id));
  }
  const rows: RowFields[] = await rowRecords(deps.db, workspaceId, [...new Set(ids)]);
  if (rows.length === 0) return { rendered: "", shown: [] };
  const out = renderRows(rows, {
    budgetTokens: deps.renderBudgetTokens,
    fence: { tag: EVIDENCE_TAG },
    displayScores: displayScoreNames(catalog.index),
  });
  return { rendered: out.rendered, shown: rows.slice(0, out.rows).map((row) => row.id) };
}
