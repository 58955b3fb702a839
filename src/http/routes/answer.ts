import type { FastifyInstance } from "fastify";
import { ANSWER_REQUEST_SCHEMA, type AnswerDeps, answer } from "../../answer/index.js";

export function answerRoutes(app: FastifyInstance, deps: AnswerDeps): void {
  app.post<{ Body: unknown }>(
    "/answer",
    {
      schema: {
        summary: "A cited answer from memory: one search, one model call, every citation verified",
        tags: ["answer"],
        body: ANSWER_REQUEST_SCHEMA,
      },
    },
    async (request) => answer(deps, request.workspace.id, request.body),
  );
}
