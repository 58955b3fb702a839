import type { FastifyInstance } from "fastify";
import { validationError } from "../platform/errors.js";
import { type InputProblem, inputProblems, printable } from "../platform/input.js";
import { dottedPath } from "../platform/schema.js";

// Bad characters are replaced in the paths an error names, so the refusal itself is clean text.
function located(problems: InputProblem[], part: string) {
  return problems.map((problem) => ({
    path: dottedPath(
      part,
      problem.path.map((segment) => printable(String(segment))),
    ),
    message: problem.message,
  }));
}

/**
 * The input rules of src/platform/input.ts, applied to every route before its own validation:
 * path parameters, the query string and the body. A refusal is 422 request_schema naming each
 * field, and nothing runs after it. Bodies are JSON only (docs/api.md "Request rules"): Fastify's
 * built-in text/plain parser is removed, so a text body is 415 unsupported_media_type like any
 * other type, instead of a string that fails the body schema with 422.
 */
export function registerInputGuard(app: FastifyInstance): void {
  app.removeContentTypeParser("text/plain");
  app.addHook("preValidation", async (request) => {
    const errors = [
      ...located(inputProblems(request.params), "params"),
      ...located(inputProblems(request.query), "querystring"),
      ...located(inputProblems(request.body), ""),
    ];
    if (errors.length > 0) {
      throw validationError("the request holds values Engram cannot store or read", errors);
    }
  });
}
