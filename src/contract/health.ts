// GET / and GET /health (docs/api.md "Service routes"): the public pointer to the console and
// docs, and the public liveness and database check, the one route that documents a 503 body
// besides problem details.
import { shape } from "./closed-object.js";
import type { RouteContract } from "./route.js";
import { str } from "./schema-parts.js";

export const ROOT: RouteContract = {
  method: "GET",
  url: "/",
  schema: {
    summary: "Where to go: a browser is redirected to /console; a program gets the service's pointers",
    tags: ["service"],
    security: [],
    response: {
      200: shape({
        name: { const: "engram" },
        version: str,
        console: { const: "/console" },
        docs: { const: "/docs" },
        openapi: { const: "/openapi.json" },
      }),
      302: { description: "A browser (Accept naming text/html) goes to /console", type: "null" },
    },
  },
};

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
