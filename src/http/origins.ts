import cors from "@fastify/cors";
import type { FastifyInstance } from "fastify";
import { AppError } from "../platform/errors.js";

function isMcpPath(url: string): boolean {
  return url === "/mcp" || url.startsWith("/mcp?") || url.startsWith("/mcp/");
}

/**
 * docs/api.md "Browser origins": every present Origin is checked against the exact list. An
 * allowed origin gets CORS headers (preflight included); any other gets none, and on /mcp
 * a 403. Requests without Origin are unaffected.
 */
export async function registerOrigins(app: FastifyInstance, allowed: readonly string[]): Promise<void> {
  const allowedSet = new Set(allowed);
  app.addHook("onRequest", async (request) => {
    const origin = request.headers.origin;
    if (origin !== undefined && !allowedSet.has(origin) && isMcpPath(request.url)) {
      throw new AppError("origin_forbidden", `origin ${origin} is not allowed`);
    }
  });
  await app.register(cors, {
    // Returning false leaves the response without any CORS header (and no preflight reply).
    origin: (origin, callback) =>
      callback(null, origin !== undefined && allowedSet.has(origin) ? origin : false),
    methods: ["GET", "POST", "DELETE", "OPTIONS"],
    // No fixed list: a preflight gets back the headers it asks for, which covers
    // Authorization, MCP-Protocol-Version, Mcp-Method, Mcp-Name and every Mcp-Param-*.
    exposedHeaders: ["Content-Type"],
    maxAge: 600,
  });
}
