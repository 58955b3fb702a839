import type { FastifyInstance } from "fastify";
import { SEARCH_SPEC_SCHEMA } from "../../catalog/search-spec-schema.js";
import type { SearchDeps } from "../../search/execute.js";
import { type QuickSearch, queryView, quickSearch, search } from "../../search/service.js";

export function searchRoutes(
  app: FastifyInstance,
  deps: SearchDeps & { maxQueryChars: number; graphLimitMax: number },
): void {
  const tags = ["search"];
  app.post<{ Body: unknown }>(
    "/search",
    {
      config: { reads: true },
      schema: {
        summary: "Typed search (SearchSpec): vector, text, hybrid, recent, structured, or combined sources",
        tags,
        body: SEARCH_SPEC_SCHEMA,
      },
    },
    async (request) => search(deps, request.workspace.id, request.body),
  );
  app.get<{ Querystring: QuickSearch }>(
    "/search",
    {
      schema: {
        summary: "Hybrid search rendered for a prompt (q, entity, collection, k only)",
        tags,
        querystring: {
          type: "object",
          properties: {
            q: { type: "string", minLength: 1 },
            entity: { type: "string", minLength: 1 },
            collection: { type: "string", minLength: 1 },
            k: { type: "integer", minimum: 1, maximum: 100 },
          },
          required: ["q"],
          additionalProperties: false,
        },
      },
    },
    async (request) => quickSearch(deps, request.workspace.id, request.query),
  );
  app.post<{ Params: { name: string }; Querystring: { explain?: boolean }; Body: unknown }>(
    "/views/:name/query",
    {
      config: { reads: true },
      schema: {
        summary: "Run the active version of a named view with its parameters",
        tags,
        params: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
        querystring: {
          type: "object",
          properties: {
            explain: {
              type: "boolean",
              default: false,
              description:
                "a search view's hits carry explain, as with explain: true in a SearchSpec (search views only: 422 for a graph view)",
            },
          },
        },
        body: {
          type: "object",
          additionalProperties: true,
          description: "the view's parameters at top level; GET /views publishes each view's input_schema",
        },
      },
    },
    async (request) =>
      queryView(deps, request.workspace.id, request.params.name, request.body, {
        explain: request.query.explain === true,
      }),
  );
}
