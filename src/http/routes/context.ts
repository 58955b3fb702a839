import type { FastifyInstance } from "fastify";
import { SEARCH_BOUNDS } from "../../catalog/search-spec.js";
import { assembleContext, type ContextDeps, type ContextQuery } from "../../context/assemble.js";
import { ROW_LIMITS } from "../../records/row-schema.js";

const nonBlank = { type: "string", minLength: 1, pattern: "\\S" } as const;

export function contextRoutes(app: FastifyInstance, deps: ContextDeps): void {
  app.get<{ Querystring: ContextQuery }>(
    "/context",
    {
      schema: {
        summary: "Current state, relevant and recent records of an entity packed into a token budget",
        tags: ["context"],
        querystring: {
          type: "object",
          properties: {
            entity: { ...nonBlank, maxLength: ROW_LIMITS.entityChars },
            task: { ...nonBlank, description: "what the agent is doing: the relevant-records search" },
            budget: {
              type: "integer",
              minimum: 1,
              description: "tokens, default 4000, at most RENDER_BUDGET_TOKENS",
            },
            consumer: { ...nonBlank, description: "adds its records past its cursor (not advanced)" },
            fence_tag: { type: "string", description: 'wraps the rows in <fence_tag untrusted="true">' },
            fence_preamble: {
              type: "string",
              maxLength: SEARCH_BOUNDS.preamble,
              description: "needs fence_tag",
            },
          },
          required: ["entity"],
          additionalProperties: false,
        },
      },
    },
    async (request) => assembleContext(deps, request.workspace.id, request.query),
  );
}
