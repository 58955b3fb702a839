// buildApp(): the workspace API as one Fastify app: hooks (auth, origins, rate limits, input
// rules, problem details), the OpenAPI document, and every route of src/contract registered.
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Config } from "../config/index.js";
import { problemSchema } from "../contract/index.js";
import { catalogDeps, modelsResolver, wireModules } from "../deps.js";
import { createMetrics, type Metrics } from "../metrics/index.js";
import type { Db } from "../platform/db/index.js";
import { AppError } from "../platform/errors.js";
import { createLogger } from "../platform/log.js";
import { ajv, compileQuerySchema } from "../platform/schema.js";
import { redactKeys } from "../workspaces/index.js";
import { registerAuth } from "./auth.js";
import { closeQueryStrings, refuseMalformedQueries } from "./closed-query.js";
import { consoleRoutes } from "./console.js";
import { engramFastify } from "./fastify.js";
import { registerInputGuard } from "./input-guard.js";
import { registerOpenApi } from "./openapi.js";
import { registerOrigins } from "./origins.js";
import { sendProblem } from "./problem.js";
import { registerRateLimit } from "./rate-limit.js";
import { adminRoutes } from "./routes/admin.js";
import { answerRoutes } from "./routes/answer.js";
import { artifactRoutes } from "./routes/artifacts.js";
import { backfillRoutes } from "./routes/backfill.js";
import { catalogRoutes } from "./routes/catalog.js";
import { contextRoutes } from "./routes/context.js";
import { derivationRoutes } from "./routes/derivations.js";
import { discoveryRoutes } from "./routes/discovery.js";
import { eraseRoutes } from "./routes/erase.js";
import { healthRoutes, rootRoute } from "./routes/health.js";
import { jobRoutes } from "./routes/jobs.js";
import { keyRoutes } from "./routes/keys.js";
import { mcpRoutes } from "./routes/mcp.js";
import { metricsRoutes } from "./routes/metrics.js";
import { recordRoutes } from "./routes/records.js";
import { reindexRoutes } from "./routes/reindex.js";
import { searchRoutes } from "./routes/search.js";
import { workspaceRoutes } from "./routes/workspace.js";

// Large enough for a full MAX_BATCH_RECORDS batch of ordinary records; larger bodies get 413.
export const BODY_LIMIT_BYTES = 16 * 1024 * 1024;

export interface AppDeps {
  config: Config;
  db: Db;
  version: string;
  /** Route plugins registered after the built-in ones (domain routes; probes in tests). */
  routes?: ((app: FastifyInstance) => void | Promise<void>)[];
  /** The server's metrics, shared with its worker; made here when METRICS_TOKEN is set and none is given. */
  metrics?: Metrics;
  /** Hooks added before any route (the tests' check of replies against the documented schemas). */
  instrument?: (app: FastifyInstance) => void;
}

/** Route patterns by method, to tell "no such path" (404) from "wrong method" (405). */
function trackRoutes(app: FastifyInstance): (url: string) => string[] {
  const routes: { method: string; pattern: RegExp }[] = [];
  app.addHook("onRoute", (route) => {
    const pattern = new RegExp(
      `^${route.url.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/:[^/]+/g, "[^/]+")}$`,
    );
    for (const method of [route.method].flat()) routes.push({ method, pattern });
  });
  return (url) => {
    const path = url.split("?")[0] ?? url;
    return [...new Set(routes.filter((r) => r.pattern.test(path)).map((r) => r.method))];
  };
}

const PROBLEM_REF = { $ref: "Problem#" };

/** Gives every documented route problem details for 4xx and 5xx beside its own replies (src/contract). */
function documentProblems(app: FastifyInstance): void {
  app.addHook("onRoute", (route) => {
    if (!route.schema || route.schema.hide) return;
    route.schema.response = {
      "4xx": PROBLEM_REF,
      "5xx": PROBLEM_REF,
      ...(route.schema.response as object | undefined),
    };
  });
}

/** Fastify's fields of a request's log line, with a key sent in its URL cut to its prefix. */
function requestLogFields(req: FastifyRequest) {
  return {
    method: req.method,
    url: redactKeys(req.url),
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  wireModules();
  const app = engramFastify({
    // Logs go to stderr, like every other log of the process (docs/api.md "Configuration").
    ...(deps.config.logLevel === "silent"
      ? { logger: false }
      : {
          loggerInstance: createLogger(deps.config.logLevel).child(
            {},
            { serializers: { req: requestLogFields } },
          ),
        }),
    bodyLimit: BODY_LIMIT_BYTES,
  });
  app.setValidatorCompiler(({ schema, httpPart }) =>
    httpPart === "querystring" || httpPart === "params" ? compileQuerySchema(schema) : ajv.compile(schema),
  );
  app.addSchema(problemSchema);
  documentProblems(app);
  closeQueryStrings(app);
  const metrics = deps.config.metricsToken ? (deps.metrics ?? createMetrics(deps.db)) : undefined;
  metricsRoutes(app, { metrics, token: deps.config.metricsToken });
  deps.instrument?.(app);
  const methodsFor = trackRoutes(app);
  // Without ADMIN_TOKEN the operator API is not there for any method: no 405 names its routes.
  const hidden = (url: string) => deps.config.adminToken === undefined && /^\/admin(\/|\?|$)/.test(url);
  app.setNotFoundHandler((request, reply) => {
    const allowed = hidden(request.url)
      ? []
      : methodsFor(request.url).filter((m) => m !== "HEAD" && m !== "OPTIONS");
    if (allowed.length > 0) {
      reply.header("Allow", allowed.join(", "));
      return sendProblem(
        reply,
        new AppError(
          "method_not_allowed",
          `${request.method} is not allowed here; use ${allowed.join(" or ")}`,
        ),
      );
    }
    return sendProblem(
      reply,
      new AppError("not_found", `no route ${request.method} ${request.url.split("?")[0]}`),
    );
  });

  await registerOrigins(app, deps.config.corsOrigins);
  registerAuth(app, deps.db);
  await registerRateLimit(app, { max: deps.config.rateLimitMax, windowMs: deps.config.rateLimitWindowMs });
  refuseMalformedQueries(app);
  registerInputGuard(app);
  await registerOpenApi(app, deps.version);
  rootRoute(app, deps.version);
  healthRoutes(app, deps.db);
  consoleRoutes(app);
  catalogRoutes(app, catalogDeps(deps.db, deps.config));
  discoveryRoutes(app, deps.db);
  recordRoutes(app, deps.db, deps.config);
  jobRoutes(app, deps.db);
  workspaceRoutes(app, deps.db, {
    max_batch_records: deps.config.maxBatchRecords,
    max_body_bytes: BODY_LIMIT_BYTES,
  });
  keyRoutes(app, deps.db);
  adminRoutes(app, deps.db, deps.config.adminToken);
  derivationRoutes(app, deps.db);
  backfillRoutes(app, deps.db);
  reindexRoutes(app, deps.db, deps.config);
  eraseRoutes(app, deps.db, deps.config);
  // Search, views and everything that runs them (artifact view blocks) read with these.
  const searchDeps = {
    db: deps.db,
    models: modelsResolver(deps.config, { fakeScript: {}, onCall: metrics?.modelCall }),
    onSearch: metrics?.searchDone,
    renderBudgetTokens: deps.config.renderBudgetTokens,
    maxResponseBytes: deps.config.maxResponseBytes,
    vectorExactRows: deps.config.vectorExactRows,
    maxQueryChars: deps.config.maxQueryChars,
    graphLimitMax: deps.config.graphLimitMax,
  };
  searchRoutes(app, searchDeps);
  artifactRoutes(app, {
    ...searchDeps,
    documentMaxRecords: deps.config.documentMaxRecords,
    artifactUseRetentionDays: deps.config.artifactUseRetentionDays,
    maxFeedbackCommentChars: deps.config.maxFeedbackCommentChars,
    maxFeedbackEvidenceChars: deps.config.maxFeedbackEvidenceChars,
  });
  answerRoutes(app, searchDeps);
  contextRoutes(app, searchDeps);
  mcpRoutes(app, {
    ...searchDeps,
    documentMaxRecords: deps.config.documentMaxRecords,
    maxBatchRecords: deps.config.maxBatchRecords,
  });
  for (const register of deps.routes ?? []) await register(app);
  await app.ready();
  return app;
}
