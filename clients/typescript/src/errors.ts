// Every refusal Engram sends is RFC 9457 problem details with a stable `code`; the client turns
// it into one error type, so callers branch on `code` rather than on status text.

/** A problem details body as Engram sends it: the standard members, `code`, and extensions. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  code: string;
  detail: string;
  errors?: { path?: string; message?: string }[];
  [extension: string]: unknown;
}

/** A request Engram refused (or a response that was not problem details, code `http_<status>`). */
export class EngramError extends Error {
  readonly status: number;
  readonly code: string;
  readonly detail: string;
  readonly title: string;
  /** The whole problem body, extension members included (`errors`, `compatibility`, …). */
  readonly problem: Problem;
  /** Milliseconds the server asked to wait before retrying (Retry-After), when it said. */
  readonly retryAfterMs: number | undefined;

  constructor(problem: Problem, retryAfterMs?: number) {
    super(`${problem.code}: ${problem.detail}`);
    this.name = "EngramError";
    this.status = problem.status;
    this.code = problem.code;
    this.detail = problem.detail;
    this.title = problem.title;
    this.problem = problem;
    this.retryAfterMs = retryAfterMs;
  }
}

function isProblem(body: unknown): body is Problem {
  const value = body as Partial<Problem> | null;
  return typeof value === "object" && value !== null && typeof value.code === "string";
}

/** The error a failed response stands for; `body` is its parsed JSON, if it had any. */
export function errorFromResponse(response: Response, body: unknown): EngramError {
  const retryAfterMs = retryAfter(response.headers.get("retry-after"));
  if (isProblem(body))
    return new EngramError({ ...body, status: body.status ?? response.status }, retryAfterMs);
  const detail = typeof body === "string" && body ? body : response.statusText || "request failed";
  return new EngramError(
    {
      type: "about:blank",
      title: response.statusText,
      status: response.status,
      code: `http_${response.status}`,
      detail,
    },
    retryAfterMs,
  );
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfter(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === "") return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
