// GET /health (docs/api.md "Service routes"): public liveness and database check, the one
// route that documents a 503 body besides problem details.
import type { RouteContract } from "./route.js";

export const HEALTH: RouteContract = {
  method: "GET",
  url: "/health",
  schema: {
    summary: "Liveness and database check (public, no key)",
    tags: ["service"],
    security: [],
    response: {
      200: {
        type: "object",
        properties: { ok: { type: "boolean" }, db: { type: "boolean" } },
        required: ["ok", "db"],
      },
      503: {
        description: "The database is unreachable (problem details with ok and db false)",
        type: "object",
        additionalProperties: true,
      },
    },
  },
};
