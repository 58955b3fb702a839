// GET /metrics (docs/operations.md "Metrics"): the Prometheus text format for an
// operator's scraper, behind METRICS_TOKEN rather than a workspace key (auth.ts lets it through),
// and hidden from /openapi.json, which documents the workspace API. Without METRICS_TOKEN there
// is no route and nothing is counted: /metrics is the ordinary 404.
import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyInstance } from "fastify";
import type { Metrics } from "../../metrics/index.js";
import { AppError } from "../../platform/errors.js";
import { bearerToken } from "../auth.js";

declare module "fastify" {
  interface FastifyInstance {
    /** The server's metrics (problem.ts counts database_busy there); undefined without METRICS_TOKEN. */
    metrics: Metrics | undefined;
  }
}

const digest = (text: string) => createHash("sha256").update(text).digest();

/**
 * Whether the Authorization header carries the token. Equal-length digests are compared in
 * constant time, so the time taken tells nothing of the token, its length included.
 */
export function carriesToken(header: string | undefined, tokenDigest: Buffer): boolean {
  const sent = bearerToken(header);
  return timingSafeEqual(digest(sent ?? ""), tokenDigest) && sent !== undefined;
}

export function metricsRoutes(
  app: FastifyInstance,
  options: { metrics: Metrics | undefined; token: string | undefined },
): void {
  const { metrics, token } = options;
  app.decorate("metrics", metrics);
  if (!metrics || !token) return;
  // Every answer a route or the not-found handler gives; the route label is the pattern.
  app.addHook("onResponse", async (request, reply) => {
    metrics.requestServed({
      method: request.method,
      route: request.routeOptions.url ?? "unmatched",
      status: reply.statusCode,
      seconds: reply.elapsedTime / 1000,
    });
  });
  const tokenDigest = digest(token);
  app.get(
    "/metrics",
    {
      schema: { hide: true },
      onRequest: async (request) => {
        if (!carriesToken(request.headers.authorization, tokenDigest)) {
          throw new AppError(
            "unauthorized",
            "send the metrics token as Authorization: Bearer <METRICS_TOKEN>",
          );
        }
      },
    },
    async (_request, reply) => reply.type(metrics.contentType).send(await metrics.scrape()),
  );
}
