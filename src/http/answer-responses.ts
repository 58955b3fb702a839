// Response bodies of POST /answer and GET /context (responses.ts merges them into RESPONSES).
// The answer body is also the output schema of MCP answer tools.
import { bool, int, listOf, orNull, str, uuid } from "./schema-parts.js";
import { shape } from "./shape.js";

export const ANSWER_RESPONSE_SCHEMA = shape({
  answer: str,
  retrieval_query: str,
  citations: listOf(uuid),
  gaps: listOf(str),
  input_ids: listOf(uuid),
  model_usage: shape({ prompt_tokens: int, completion_tokens: int, calls: int, estimated: bool }),
  saved_id: orNull(uuid),
});

export const CONTEXT_RESPONSE_SCHEMA = shape({
  components: listOf(
    shape({
      name: { enum: ["state", "relevant", "recent", "delta"] },
      record_ids: listOf(uuid),
      tokens: int,
      truncated: bool,
    }),
  ),
  input_record_ids: listOf(uuid),
  rendered: str,
  tokens: int,
  truncated: bool,
});

export const ANSWER_RESPONSES = {
  "POST /answer": { status: 200, schema: ANSWER_RESPONSE_SCHEMA },
  "GET /context": { status: 200, schema: CONTEXT_RESPONSE_SCHEMA },
};
