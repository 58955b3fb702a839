// The two ways a model call fails. The split decides both the HTTP answer (docs/api.md, "Error codes":
// 503 answer_model_unavailable vs 502 answer_model) and whether an alias's next target is tried
// (transport failures only: a model that answered badly is not asked to be replaced).
import { AppError } from "../platform/errors.js";

/** Where a call went: the alias asked for and the "provider:model" target that failed. */
export interface ModelErrorContext {
  alias: string;
  /** "provider:model" of the (last) target tried. */
  target: string;
}

export abstract class ModelError extends Error {
  readonly alias: string;
  readonly target: string;
  constructor(context: ModelErrorContext, message: string, options?: { cause?: unknown }) {
    super(`model ${context.alias} (${context.target}): ${message}`, options);
    this.alias = context.alias;
    this.target = context.target;
  }
}

/**
 * No usable reply: provider unreachable, timeout, any HTTP error status (5xx and 429 after the
 * router's retries, but also 4xx such as a bad key or an unknown model, and a redirect, which is
 * never followed), or a missing api key variable. With several targets, the error of the last one
 * is thrown and `attempts` lists all.
 */
export class ModelTransportError extends ModelError {
  override readonly name = "ModelTransportError";
  /** HTTP status of the provider's reply, when there was one. */
  readonly status: number | null;
  /** Whether asking again may succeed (a timeout, a dropped connection, 408, 409, 429, 5xx). */
  readonly transient: boolean;
  /** How long the provider asked to wait before asking again (Retry-After), when it said. */
  readonly retryAfterMs: number | null;
  /** False when nothing reached the provider (its key variable is not set). */
  readonly sent: boolean;
  /** Every target tried, in order, with its failure (the last one is this error's own). */
  attempts: { target: string; message: string }[] = [];
  constructor(
    context: ModelErrorContext,
    message: string,
    options?: {
      cause?: unknown;
      status?: number;
      transient?: boolean;
      retryAfterMs?: number;
      sent?: boolean;
    },
  ) {
    super(context, message, options);
    this.status = options?.status ?? null;
    this.transient = options?.transient ?? false;
    this.retryAfterMs = options?.retryAfterMs ?? null;
    this.sent = options?.sent ?? true;
  }
}

/**
 * A reply that cannot be used: malformed body, non-JSON or schema-invalid JSON, a refusal, a
 * vector of the wrong dimensions, a score outside the scale or not a number, or (fake provider)
 * no scripted output for a JSON task.
 */
export class ModelOutputError extends ModelError {
  override readonly name = "ModelOutputError";
}

/**
 * The AppError a request handler answers with when a model call failed.
 * - answer: output failure → 502 answer_model, transport failure → 503 answer_model_unavailable;
 * - embeddings / rerank: either failure → 503 embeddings_unavailable / rerank_unavailable.
 * Anything that is not a ModelError is returned unchanged (a bug, not a model failure).
 */
export function modelAppError(error: unknown, use: "answer" | "embeddings" | "rerank"): unknown {
  if (!(error instanceof ModelError)) return error;
  const extra = { alias: error.alias, target: error.target };
  if (use === "answer") {
    return error instanceof ModelOutputError
      ? new AppError("answer_model", error.message, extra)
      : new AppError("answer_model_unavailable", error.message, extra);
  }
  return new AppError(
    use === "embeddings" ? "embeddings_unavailable" : "rerank_unavailable",
    error.message,
    extra,
  );
}
