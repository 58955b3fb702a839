// The HTTP listener of a worker run apart from `engram serve` (engram worker --metrics-port):
// GET /metrics behind METRICS_TOKEN, with that process's job attempts and model calls, and GET
// /health. Nothing else: the workspace API is served by `engram serve`.
import Fastify, { type FastifyInstance } from "fastify";
import type { Metrics } from "../metrics/index.js";
import type { Db } from "../platform/db/index.js";
import { AppError } from "../platform/errors.js";
import { handleClientError, handleError, handleFrameworkError, sendProblem } from "./problem.js";
import { healthRoutes } from "./routes/health.js";
import { metricsRoutes } from "./routes/metrics.js";

export async function buildMetricsApp(deps: {
  db: Db;
  metrics: Metrics;
  token: string;
}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: false,
    forceCloseConnections: "idle",
    frameworkErrors: handleFrameworkError,
    clientErrorHandler: handleClientError,
  });
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  app.setErrorHandler(handleError);
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
