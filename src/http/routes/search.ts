// The search routes (src/contract/search.ts): POST and GET /search, POST /views/{name}/query.
import type { FastifyInstance } from "fastify";
import { QUERY_VIEW, QUICK_SEARCH, SEARCH } from "../../contract/index.js";
import { type QuickSearch, queryView, quickSearch, type SearchDeps, search } from "../../search/index.js";
import { contractRoute } from "../contract-route.js";

export function searchRoutes(
  app: FastifyInstance,
  deps: SearchDeps & { maxQueryChars: number; graphLimitMax: number },
): void {
  app.route<{ Body: unknown }>({
    ...contractRoute(SEARCH),
    config: { reads: true },
    handler: async (request) => search(deps, request.workspace.id, request.body),
  });
  app.route<{ Querystring: QuickSearch }>({
    ...contractRoute(QUICK_SEARCH),
    handler: async (request) => quickSearch(deps, request.workspace.id, request.query),
  });
  app.route<{ Params: { name: string }; Querystring: { explain?: boolean }; Body: unknown }>({
    ...contractRoute(QUERY_VIEW),
    config: { reads: true },
    handler: async (request) =>
      queryView(deps, {
        workspaceId: request.workspace.id,
        name: request.params.name,
        args: request.body,
        explain: request.query.explain === true,
      }),
  });
}
