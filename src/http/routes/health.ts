// GET / and GET /health (src/contract/health.ts): public; / sends a browser to the console and a
// program its pointers, /health answers 503 with problem details when the database is gone.
import type { FastifyInstance } from "fastify";
import { HEALTH, PROBLEM_CONTENT_TYPE, problemBody, ROOT } from "../../contract/index.js";
import { type Db, databaseAnswers } from "../../platform/db/index.js";
import { AppError } from "../../platform/errors.js";
import { contractRoute } from "../contract-route.js";

/** Whether the client takes HTML (a browser's navigation names text/html in Accept). */
const wantsHtml = (accept: string | undefined) => /(^|,)\s*text\/html\s*(;|,|$)/i.test(accept ?? "");

/** GET /: the API server's front door (a worker's metrics port has none). */
export function rootRoute(app: FastifyInstance, version: string): void {
  app.route({
    ...contractRoute(ROOT),
    handler: async (request, reply) => {
      if (wantsHtml(request.headers.accept)) return reply.redirect("/console", 302);
      return { name: "engram", version, console: "/console", docs: "/docs", openapi: "/openapi.json" };
    },
  });
}

export function healthRoutes(app: FastifyInstance, db: Db): void {
  app.route({
    ...contractRoute(HEALTH),
    handler: async (_request, reply) => {
      if (await databaseAnswers(db)) return { ok: true, db: true };
      const problem = problemBody(new AppError("database_unavailable", "the database is unreachable"));
      return reply
        .code(503)
        .type(PROBLEM_CONTENT_TYPE)
        .send({ ...problem, ok: false, db: false });
    },
  });
}
