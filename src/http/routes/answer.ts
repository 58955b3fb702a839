import type { FastifyInstance } from "fastify";
import { ANSWER_REQUEST_SCHEMA, type AnswerDeps, answer } from "../../answer/index.js";
import { requireWritable } from "../auth.js";

export function answerRoutes(app: FastifyInstance, deps: AnswerDeps): void {
  app.post<{ Body: { save?: boolean } }>(
    "/answer",
    {
      // A read unless it saves the answer as a record.
      config: { reads: true },
      schema: {
        summary: "A cited answer from memory: one search, one model call, every citation verified",
        tags: ["answer"],
        body: ANSWER_REQUEST_SCHEMA,
      },
    },
    async (request) => {
      if (request.body.save === true) requireWritable(request);
      return answer(deps, request.workspace.id, request.body);
    },
  );
}
