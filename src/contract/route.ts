// RouteContract: one route of the workspace API as both shells know it. src/http registers it
// (its schemas validate each request and make /openapi.json); src/mcp answers tool calls with the
// reply schemas of the routes its tools stand for. Problem details for 4xx and 5xx are added to
// every route by src/http/app.ts, so a route lists only its own replies.
import type { Schema } from "./schema-parts.js";

export interface RouteSchema {
  summary: string;
  tags: string[];
  description?: string;
  /** Overrides the document's security: [] for a public route. */
  security?: Record<string, string[]>[];
  params?: Schema;
  querystring?: Schema;
  body?: Schema;
  /** The replies by status: the success, and any a route answers besides problem details. */
  response: Record<number, Schema>;
}

export interface RouteContract {
  method: "GET" | "POST" | "DELETE";
  /** The path as Fastify writes it (/records/:id). */
  url: string;
  schema: RouteSchema;
}

/** The body a route answers on success (the output of the MCP tools that stand for it). */
export function successBody(route: RouteContract): Schema {
  const success = Object.entries(route.schema.response).find(([status]) => status.startsWith("2"));
  if (!success) throw new Error(`${route.method} ${route.url} documents no success`);
  return success[1];
}
