import rateLimit from "@fastify/rate-limit";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { AppError } from "../platform/errors.js";

export interface RateLimitSettings {
  /** Requests per window per workspace key; 0 turns limiting off. */
  max: number;
  windowMs: number;
}

/**
 * Per-key rate limiting (docs/api.md "Authentication"): each key of a workspace has its own
 * budget, counted by the key's id. The count runs in onRequest, after authentication (its
 * onRequest hook is added at the root, so it runs before this route-level one) and before the
 * body is read or anything is validated: a limited key gets 429 whatever it sends, and a large
 * or broken body costs it nothing more. A request with no key is never counted: authentication
 * has refused every one (401) except the public routes, and an address-based budget would be
 * one shared budget behind a reverse proxy. A refusal is 429 rate_limited with Retry-After
 * (seconds) and the RateLimit headers.
 */
export async function registerRateLimit(app: FastifyInstance, settings: RateLimitSettings): Promise<void> {
  if (settings.max === 0) return;
  await app.register(rateLimit, {
    global: true,
    hook: "onRequest",
    max: settings.max,
    timeWindow: settings.windowMs,
    keyGenerator: (request) => `key:${request.key?.id}`,
    allowList: (request) => request.key === undefined,
    errorResponseBuilder: (_request, context) => limited(context.max, settings.windowMs, context.after),
  });
}

function limited(max: number, windowMs: number, after: string): AppError {
  return new AppError(
    "rate_limited",
    `more than ${max} requests in ${Math.round(windowMs / 1000)} s for this key; retry in ${after}`,
  );
}

/**
 * Charges a request that carries several messages (an MCP JSON-RPC batch) for each one past the
 * first, which onRequest counted: each message spends the key's budget as a request of its own
 * would. Over the limit, the request is refused whole with the same 429, before any of it runs.
 */
export async function chargeMessages(
  app: FastifyInstance,
  request: FastifyRequest,
  reply: FastifyReply,
  messages: number,
): Promise<void> {
  if (messages <= 1 || !app.hasDecorator("createRateLimit")) return;
  const charge = app.createRateLimit();
  let outcome: Awaited<ReturnType<typeof charge>> | undefined;
  for (let message = 1; message < messages; message++) outcome = await charge(request);
  if (!outcome || outcome.isAllowed || !outcome.isExceeded) return;
  reply.header("retry-after", outcome.ttlInSeconds);
  reply.header("x-ratelimit-limit", outcome.max);
  reply.header("x-ratelimit-remaining", 0);
  reply.header("x-ratelimit-reset", outcome.ttlInSeconds);
  throw limited(outcome.max, outcome.timeWindow, `${outcome.ttlInSeconds} s`);
}
