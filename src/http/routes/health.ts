import type { FastifyInstance } from "fastify";
import type { Db } from "../../platform/db/index.js";
import { AppError } from "../../platform/errors.js";
import { PROBLEM_CONTENT_TYPE, problemBody } from "../problem.js";

// A health probe must answer quickly even when the database hangs.
const HEALTH_DB_TIMEOUT_MS = 2_000;
// On PGlite a probe would wait behind every statement already queued (a hybrid search queues
// three); a statement completed this recently shows the database answers. A wedged database
// completes none, so the probe runs and times out.
const RECENT_ANSWER_MS = 1_000;

async function databaseAnswers(db: Db): Promise<boolean> {
  if (db.answeredWithin(RECENT_ANSWER_MS)) return true;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), HEALTH_DB_TIMEOUT_MS);
  });
  const probe = db.query("SELECT 1").then(
    () => true,
    () => false,
  );
  try {
    return await Promise.race([probe, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export function healthRoutes(app: FastifyInstance, db: Db): void {
  app.get(
    "/health",
    {
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
    },
    async (_request, reply) => {
      if (await databaseAnswers(db)) return { ok: true, db: true };
      const problem = problemBody(new AppError("database_unavailable", "the database is unreachable"));
      return reply
        .code(503)
        .type(PROBLEM_CONTENT_TYPE)
        .send({ ...problem, ok: false, db: false });
    },
  );
}
