// The body of POST /answer (docs/api.md "`POST /answer`"): one JSON Schema serves the route, OpenAPI and
// MCP callers, and answerRequest() checks it again with the rules a schema cannot say.
//
// Rules beyond what the schema says:
// - question and entities items must hold a non-space character; an over-long question is
//   422 answer_question_too_large (not request_schema), so the schema leaves its length open.
// - since and until are RFC 3339 date-times with an offset ("timezone-aware") and exclusive
//   bounds (they become the search scope's occurred_after and occurred_before).
import { AppError, validationError } from "../platform/errors.js";
import { compileSchema, toFieldErrors } from "../platform/schema.js";

export const ANSWER_LIMITS = { entities: 100, entityChars: 128, anchorChars: 128 } as const;

const nonBlank = { type: "string", minLength: 1, pattern: "\\S" } as const;
const instant = {
  type: "string",
  format: "date-time",
  pattern: "(Z|z|[+-]\\d{2}:?\\d{2})$",
  description: "occurred_at bound with a timezone (exclusive)",
} as const;

export const ANSWER_REQUEST_SCHEMA = {
  type: "object",
  properties: {
    question: { ...nonBlank, description: "at most MAX_QUERY_CHARS characters" },
    entities: {
      type: "array",
      maxItems: ANSWER_LIMITS.entities,
      items: { ...nonBlank, maxLength: ANSWER_LIMITS.entityChars },
      description: "omitted: every entity of the answerable collections",
    },
    rewrite: { type: "boolean", default: false, description: "one more model call writes the search query" },
    anchor: {
      ...nonBlank,
      maxLength: ANSWER_LIMITS.anchorChars,
      description: "a graph node: links within 2 steps (10 paths) join the evidence",
    },
    graph: { ...nonBlank, description: "the graph view used with anchor (when several are active)" },
    since: instant,
    until: instant,
    save: { type: "boolean", default: false, description: "keep the answer as a record in syntheses" },
  },
  required: ["question"],
  additionalProperties: false,
} as const;

export interface AnswerRequest {
  question: string;
  entities?: string[];
  rewrite: boolean;
  anchor?: string;
  graph?: string;
  since?: string;
  until?: string;
  save: boolean;
}

/** The request checked whole (schema, then the rules across fields); refusals change nothing. */
export function answerRequest(body: unknown, limits: { maxQueryChars: number }): AnswerRequest {
  const validate = compileSchema(ANSWER_REQUEST_SCHEMA);
  const request = structuredClone(body);
  if (!validate(request)) {
    const errors = toFieldErrors(validate.errors);
    throw validationError(
      `invalid answer request: ${errors.map((e) => `${e.path || "body"}: ${e.message}`).join("; ")}`,
      errors,
    );
  }
  const parsed = request as AnswerRequest;
  if (parsed.question.length > limits.maxQueryChars) {
    throw new AppError(
      "answer_question_too_large",
      `the question has ${parsed.question.length} characters; at most ${limits.maxQueryChars} (MAX_QUERY_CHARS)`,
    );
  }
  const errors = [];
  if (parsed.graph !== undefined && parsed.anchor === undefined) {
    errors.push({ path: "graph", message: "needs anchor" });
  }
  if (parsed.since && parsed.until && Date.parse(parsed.since) >= Date.parse(parsed.until)) {
    errors.push({ path: "since", message: "must precede until" });
  }
  if (errors.length > 0) {
    throw validationError(
      `invalid answer request: ${errors.map((e) => `${e.path}: ${e.message}`).join("; ")}`,
      errors,
    );
  }
  return { ...parsed, rewrite: parsed.rewrite ?? false, save: parsed.save ?? false };
}
