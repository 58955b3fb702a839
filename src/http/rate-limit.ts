import rateLimit from "@fastify/rate-limit";
import type { FastifyInstance } from "fastify";
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
    errorResponseBuilder: (_request, context) =>
      new AppError(
        "rate_limited",
        `more than ${context.max} requests in ${Math.round(settings.windowMs / 1000)} s for this key; retry in ${context.after}`,
      ),
  });
}
