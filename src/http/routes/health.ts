// GET /health (src/contract/health.ts): public; 503 with problem details when the database is gone.
import type { FastifyInstance } from "fastify";
import { HEALTH, PROBLEM_CONTENT_TYPE, problemBody } from "../../contract/index.js";
import { type Db, databaseAnswers } from "../../platform/db/index.js";
import { AppError } from "../../platform/errors.js";
import { contractRoute } from "../contract-route.js";

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
