// GET /context (src/contract/context.ts): an entity's records packed into a token budget.
import type { FastifyInstance } from "fastify";
import { assembleContext, type ContextDeps, type ContextQuery } from "../../context/index.js";
import { CONTEXT } from "../../contract/index.js";
import { contractRoute } from "../contract-route.js";

export function contextRoutes(app: FastifyInstance, deps: ContextDeps): void {
  app.route<{ Querystring: ContextQuery }>({
    ...contractRoute(CONTEXT),
    handler: async (request) => assembleContext(deps, request.workspace.id, request.query),
  });
}
