import rateLimit from "@fastify/rate-limit";
import type { FastifyInstance } from "fastify";
import { AppError } from "../platform/errors.js";
import { isPublicPath } from "./auth.js";

export interface RateLimitSettings {
  /** Requests per window per workspace key; 0 turns limiting off. */
  max: number;
  windowMs: number;
}

/**
 * Per-key rate limiting: counted after authentication (preHandler), so each workspace key has
 * its own budget and a refused key is never counted; the public routes are never limited.
 * A refusal is 429 rate_limited with Retry-After (seconds) and the RateLimit headers.
 */
export async function registerRateLimit(app: FastifyInstance, settings: RateLimitSettings): Promise<void> {
  if (settings.max === 0) return;
  await app.register(rateLimit, {
    global: true,
    hook: "preHandler",
    max: settings.max,
    timeWindow: settings.windowMs,
    keyGenerator: (request) => (request.workspace ? `ws:${request.workspace.id}` : `ip:${request.ip}`),
    allowList: (request) => isPublicPath(request.url),
    errorResponseBuilder: (_request, context) =>
      new AppError(
        "rate_limited",
        `more than ${context.max} requests in ${Math.round(settings.windowMs / 1000)} s for this key; retry in ${context.after}`,
      ),
  });
}
