// GET /metrics (docs/operations.md "Metrics"): the Prometheus text format for an
// operator's scraper, behind METRICS_TOKEN rather than a workspace key (auth.ts lets it through),
// and hidden from /openapi.json, which documents the workspace API. Without METRICS_TOKEN there
// is no route and nothing is counted: /metrics is the ordinary 404.
import type { FastifyInstance } from "fastify";
import type { Metrics } from "../../metrics/index.js";
import { AppError } from "../../platform/errors.js";
import { carriesToken, tokenDigest } from "../auth.js";

declare module "fastify" {
  interface FastifyInstance {
    /** The server's metrics (problem.ts counts database_busy there); undefined without METRICS_TOKEN. */
    metrics: Metrics | undefined;
  }
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
  const expected = tokenDigest(token);
  app.get(
    "/metrics",
    {
      schema: { hide: true },
      onRequest: async (request) => {
        if (!carriesToken(request.headers.authorization, expected)) {
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
