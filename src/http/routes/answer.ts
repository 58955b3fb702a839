// POST /answer (src/contract/answer.ts): a read unless it saves the answer.
import type { FastifyInstance } from "fastify";
import { type AnswerDeps, answer } from "../../answer/index.js";
import { ANSWER } from "../../contract/index.js";
import { requireWritable } from "../auth.js";
import { contractRoute } from "../contract-route.js";

export function answerRoutes(app: FastifyInstance, deps: AnswerDeps): void {
  app.route<{ Body: { save?: boolean } }>({
    ...contractRoute(ANSWER),
    // A read unless it saves the answer as a record.
    config: { reads: true },
    handler: async (request) => {
      if (request.body.save === true) requireWritable(request);
      return answer(deps, request.workspace.id, request.body);
    },
  });
}
