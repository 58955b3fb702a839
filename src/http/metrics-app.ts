// The HTTP listener of a worker run apart from `engram serve` (engram worker --metrics-port):
// GET /metrics behind METRICS_TOKEN, with that process's job attempts and model calls, and GET
// /health. Nothing else: the workspace API is served by `engram serve`.
import type { FastifyInstance } from "fastify";
import type { Metrics } from "../metrics/index.js";
import type { Db } from "../platform/db/index.js";
import { AppError } from "../platform/errors.js";
import { engramFastify } from "./fastify.js";
import { sendProblem } from "./problem.js";
import { healthRoutes } from "./routes/health.js";
import { metricsRoutes } from "./routes/metrics.js";

export function buildMetricsApp(deps: { db: Db; metrics: Metrics; token: string }): FastifyInstance {
  const app = engramFastify({ logger: false });
  metricsRoutes(app, { metrics: deps.metrics, token: deps.token });
  healthRoutes(app, deps.db);
  app.setNotFoundHandler((request, reply) =>
    sendProblem(
      reply,
      new AppError(
        "not_found",
        `no route ${request.method} ${request.url.split("?")[0]}: a worker's port serves only GET /metrics and GET /health`,
      ),
    ),
  );
  return app;
}
