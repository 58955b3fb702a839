// Problem details (RFC 9457, docs/api.md "Problem details"): the body of every refusal, over HTTP and in
// an MCP tool's isError result, and the "Problem" schema /openapi.json publishes for it.
import { STATUS_CODES } from "node:http";
import type { AppError } from "../platform/errors.js";

export const PROBLEM_CONTENT_TYPE = "application/problem+json; charset=utf-8";

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  code: string;
  detail: string;
  [extension: string]: unknown;
}

export function problemBody(error: AppError): ProblemBody {
  return {
    type: "about:blank",
    title: STATUS_CODES[error.status] ?? "Error",
    status: error.status,
    code: error.code,
    detail: error.detail,
    ...error.extra,
  };
}

export const problemSchema = {
  $id: "Problem",
  type: "object",
  description: "RFC 9457 problem details with a stable machine-readable code",
  properties: {
    type: { type: "string" },
    title: { type: "string" },
    status: { type: "integer" },
    code: { type: "string" },
    detail: { type: "string" },
    errors: {
      type: "array",
      items: {
        type: "object",
        properties: { path: { type: "string" }, message: { type: "string" } },
      },
    },
  },
  required: ["type", "title", "status", "code", "detail"],
  additionalProperties: true,
} as const;
