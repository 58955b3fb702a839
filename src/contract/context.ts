// GET /context (docs/api.md "GET /context"): an entity's state, relevant and recent records
// packed into a token budget.
import { SEARCH_BOUNDS } from "../catalog/index.js";
import { ROW_LIMITS } from "../records/index.js";
import { shape } from "./closed-object.js";
import type { RouteContract } from "./route.js";
import { asOf, bool, int, listOf, str, uuid } from "./schema-parts.js";

const nonBlank = { type: "string", minLength: 1, pattern: "\\S" } as const;

export const CONTEXT: RouteContract = {
  method: "GET",
  url: "/context",
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
        consumer: {
          ...nonBlank,
          description: "adds its records past its cursor (not advanced); not with as_of",
        },
        as_of: asOf,
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
    response: {
      200: shape({
        components: listOf(
          shape({
            name: { enum: ["state", "relevant", "recent", "delta"] },
            record_ids: listOf(uuid),
            tokens: int,
            truncated: bool,
          }),
        ),
        input_record_ids: listOf(uuid),
        rendered: str,
        tokens: int,
        truncated: bool,
      }),
    },
  },
};
