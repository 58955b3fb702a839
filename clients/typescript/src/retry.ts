// Retries only where a second attempt cannot do something twice: reads, and writes whose rows
// all carry dedupe keys (the server lists a repeat under duplicates). What is retried: 429 and
// 503 (database_busy, database_unavailable), after Retry-After when the server sends it, else
// after an exponential backoff with jitter; and, for the same safe requests, a network failure.
import { delay } from "./delay.js";
import { errorFromResponse } from "./errors.js";

export interface RetryOptions {
  /** Tries in all, the first included (default 4). */
  attempts?: number;
  /** The first backoff, doubled each time (default 250 ms). */
  baseDelayMs?: number;
  /** The longest backoff (default 8 s). */
  maxDelayMs?: number;
  /** The longest Retry-After honoured; a longer one ends the retries (default 60 s). */
  maxRetryAfterMs?: number;
}

export type RetryPolicy = Required<RetryOptions>;

export const NO_RETRY: RetryPolicy = { attempts: 1, baseDelayMs: 0, maxDelayMs: 0, maxRetryAfterMs: 0 };

export function retryPolicy(options: RetryOptions | false | undefined): RetryPolicy {
  if (options === false) return NO_RETRY;
  return {
    attempts: options?.attempts ?? 4,
    baseDelayMs: options?.baseDelayMs ?? 250,
    maxDelayMs: options?.maxDelayMs ?? 8000,
    maxRetryAfterMs: options?.maxRetryAfterMs ?? 60_000,
  };
}

const RETRIED_STATUSES = new Set([429, 503]);

/** What openapi-fetch answers: the parsed success body or error body, and the response. */
export interface Outcome<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/**
 * Sends (by calling `attempt`, which builds a fresh request each time) until a success, a refusal
 * not worth retrying, or the policy's last try. `safe` says whether repeating the request is harmless.
 */
export async function withRetry<T>(
  attempt: () => Promise<Outcome<T>>,
  policy: RetryPolicy,
  safe: boolean,
  signal?: AbortSignal,
): Promise<T> {
  const tries = safe ? policy.attempts : 1;
  for (let n = 1; ; n++) {
    let outcome: Outcome<T>;
    try {
      outcome = await attempt();
    } catch (error) {
      if (n >= tries || signal?.aborted || !isNetworkFailure(error)) throw error;
      await delay(backoff(policy, n), signal);
      continue;
    }
    const { response } = outcome;
    if (response.ok) return outcome.data as T;
    const failure = errorFromResponse(response, outcome.error);
    if (n >= tries || !RETRIED_STATUSES.has(response.status)) throw failure;
    const wait = failure.retryAfterMs ?? backoff(policy, n);
    if (wait > policy.maxRetryAfterMs) throw failure;
    await delay(wait, signal);
  }
}

/** fetch rejects with a TypeError when no response came (refused, reset, DNS); aborts are not that. */
function isNetworkFailure(error: unknown): boolean {
  return error instanceof TypeError;
}

/** Full jitter: a random wait up to the doubled delay, so many clients do not retry in step. */
function backoff(policy: RetryPolicy, n: number): number {
  return Math.random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (n - 1));
}
