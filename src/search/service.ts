// Search and view entry points: validate against the installed catalog, then execute.
import { type InstalledCatalog, requireCatalog, validateSearchSpec, viewSearch } from "../catalog/index.js";
import { AppError, validationError } from "../platform/errors.js";
import { executeSearch, type SearchDeps } from "./execute.js";
import { queryGraphView } from "./graph.js";

export interface SearchLimits {
  maxQueryChars: number;
}

export async function search(deps: SearchDeps & SearchLimits, workspaceId: string, body: unknown) {
  const catalog = await requireCatalog(deps.db, workspaceId);
  const spec = validateSearchSpec(body, catalog.index, { maxQueryChars: deps.maxQueryChars });
  return executeSearch(deps, { workspaceId, catalog, spec });
}

export interface QuickSearch {
  q: string;
  entity?: string;
  collection?: string;
  k?: number;
}

/** GET /search: a hybrid search over the visible collections, rendered for a prompt. */
export function quickSearch(deps: SearchDeps & SearchLimits, workspaceId: string, query: QuickSearch) {
  const scope: Record<string, unknown> = {};
  if (query.entity !== undefined) scope.entities = [query.entity];
  if (query.collection !== undefined) scope.collections = [query.collection];
  return search(deps, workspaceId, {
    mode: "hybrid",
    q: query.q,
    ...(query.k === undefined ? {} : { k: query.k }),
    scope,
    include: ["text", "collection", "type", "occurred_at"],
    render: true,
  });
}

export type ViewDeps = SearchDeps & SearchLimits & { graphLimitMax?: number };

/** One view call: its workspace, its arguments, and the options of POST /views/{name}/query's query string. */
export interface ViewCall {
  workspaceId: string;
  args: unknown;
  /** A search view's hits explain their ranking (SearchSpec explain); refused for graph views. */
  explain?: boolean;
}

/** POST /views/{name}/query: the active version of the view, its parameters, then the search. */
export async function queryView(
  // graphLimitMax: GRAPH_LIMIT_MAX (the spec's ceiling of 500 when a caller passes none).
  deps: ViewDeps,
  call: ViewCall & { name: string },
) {
  const { workspaceId, name, ...rest } = call;
  const catalog = await requireCatalog(deps.db, workspaceId);
  const entry = [...catalog.index.views.keys()].find((id) => {
    const def = catalog.index.views.get(id)?.def;
    return def?.name === name && def.active;
  });
  if (!entry) throw new AppError("view_not_found", `no active view "${name}"`);
  return runView(deps, { ...rest, workspaceId, catalog, id: entry });
}

/** One listed view version (`name@version`) with its arguments: a search or a graph read. */
export async function runView(deps: ViewDeps, call: ViewCall & { catalog: InstalledCatalog; id: string }) {
  const { workspaceId, catalog, id, args } = call;
  const view = catalog.index.views.get(id)?.def;
  if (!view) throw new AppError("view_not_found", `no view ${id} in the package`);
  if (view.kind !== "search") {
    if (call.explain) {
      throw validationError(
        `view "${view.name}" is a ${view.kind} view: explain applies to search views only`,
        [{ path: "querystring.explain", message: "applies to search views only" }],
      );
    }
    const graphLimitMax = deps.graphLimitMax ?? 500;
    const graphDeps = { db: deps.db, graphLimitMax, maxResponseBytes: deps.maxResponseBytes };
    return queryGraphView(graphDeps, {
      workspaceId,
      catalog,
      view,
      hash: catalog.hashes[`views:${id}`],
      args: args ?? {},
    });
  }
  const { parameters, spec } = viewSearch(view, args ?? {}, catalog.index, {
    maxQueryChars: deps.maxQueryChars,
  });
  // A view's own query never says explain (linkView); the caller asks for it per call.
  if (call.explain) spec.explain = true;
  // The rerank and graph_boost diagnostics are not forwarded; the order reflects them.
  const {
    rerank: _rerank,
    graph_boost: _graphBoost,
    ...result
  } = await executeSearch(deps, { workspaceId, catalog, spec });
  return {
    ...result,
    view: { name: view.name, version: view.version, hash: catalog.hashes[`views:${id}`] },
    parameters,
    input_record_ids: result.hits.map((hit) => hit.id),
  };
}
