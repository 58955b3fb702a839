// The answer module's import surface (HTTP route, MCP tools).

export { ANSWER_REQUEST_SCHEMA, type AnswerRequest } from "./request.js";
export { type AnswerDeps, type AnswerResult, answer } from "./service.js";
