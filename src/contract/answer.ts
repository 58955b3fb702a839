// POST /answer (docs/api.md "POST /answer"): its request is the answer module's, and its reply is
// also the output schema of MCP answer tools.
import { ANSWER_REQUEST_SCHEMA } from "../answer/index.js";
import { shape } from "./closed-object.js";
import type { RouteContract } from "./route.js";
import { bool, int, listOf, orNull, str, uuid } from "./schema-parts.js";

export const ANSWER: RouteContract = {
  method: "POST",
  url: "/answer",
  schema: {
    summary: "A cited answer from memory: one search, one model call, every citation verified",
    tags: ["answer"],
    body: ANSWER_REQUEST_SCHEMA,
    response: {
      200: shape({
        answer: str,
        retrieval_query: str,
        citations: listOf(uuid),
        gaps: listOf(str),
        input_ids: listOf(uuid),
        model_usage: shape({ prompt_tokens: int, completion_tokens: int, calls: int, estimated: bool }),
        saved_id: orNull(uuid),
      }),
    },
  },
};
