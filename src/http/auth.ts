import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { forgetInstall, runAsRequest } from "../catalog/index.js";
import type { Db } from "../platform/db/index.js";
import { AppError } from "../platform/errors.js";
import type { Workspace } from "../platform/workspace.js";
import { authenticate, type KeyHolder } from "../workspaces/index.js";

declare module "fastify" {
  interface FastifyRequest {
    /** The workspace the bearer key selected; set on every non-public route. */
    workspace: Workspace;
    /** The bearer key itself (its id and scope); set with workspace. */
    key: KeyHolder["key"];
  }
  interface FastifyContextConfig {
    /**
     * A route that only reads although its method is not GET (search, view queries, renders):
     * read-only keys may call it. Every other non-GET route is a write and refuses them.
     */
    reads?: boolean;
    /** A route that manages the workspace's keys: only an admin key may call it (403 key_scope). */
    manageKeys?: boolean;
  }
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** The token of an `Authorization: Bearer <token>` header, or undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  return BEARER.exec(header ?? "")?.[1];
}

/** The digest an operator token (METRICS_TOKEN, ADMIN_TOKEN) is compared by. */
export const tokenDigest = (text: string) => createHash("sha256").update(text).digest();

/**
 * Whether the Authorization header carries the token. Equal-length digests are compared in
 * constant time, so the time taken tells nothing of the token, its length included.
 */
export function carriesToken(header: string | undefined, expected: Buffer): boolean {
  const sent = bearerToken(header);
  return timingSafeEqual(tokenDigest(sent ?? ""), expected) && sent !== undefined;
}

/** The operator API: ADMIN_TOKEN, never a workspace key, is checked by its routes (routes/admin.ts). */
export function isOperatorPath(url: string): boolean {
  const path = url.split("?")[0] ?? url;
  return path === "/admin" || path.startsWith("/admin/");
}

// Served without a key, whatever the method (so a wrong method gets 405, not 401).
const PUBLIC_PATHS = new Set(["/", "/health", "/openapi.json", "/metrics"]); // /metrics: its own token

export function isPublicPath(url: string): boolean {
  const path = url.split("?")[0] ?? url;
  return PUBLIC_PATHS.has(path) || isStaticPath(path);
}

// Engram has no OAuth authorization server (the key is a static bearer token). MCP hosts that take
// a 401 for an OAuth challenge look for one in well-known documents (RFC 9728, RFC 8414, OIDC; at
// the root or after the path) and then at the default endpoints of the MCP authorization spec.
// These answer 404, with or without a key, saying so: the host learns at once that there is no
// sign-in, instead of reading a 401 there as "sign in first" and waiting for one that cannot happen.
const OAUTH_FALLBACK_PATHS = new Set(["/register", "/authorize", "/token"]);

function isOAuthPath(url: string): boolean {
  const path = url.split("?")[0] ?? url;
  return path.includes("/.well-known/") || OAUTH_FALLBACK_PATHS.has(path);
}

const NO_OAUTH =
  "Engram has no OAuth authorization server: send the workspace key as Authorization: Bearer <key> " +
  "(a 401 means the key sent was missing, wrong, revoked or expired)";

/** The reference page and the console: static files that hold nothing of any workspace. */
export function isStaticPath(path: string): boolean {
  return ["/docs", "/console"].some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}

/** A workspace key on every route except the public ones (docs/api.md "Authentication"). */
export function registerAuth(app: FastifyInstance, db: Db): void {
  app.decorateRequest("workspace", undefined as unknown as Workspace);
  app.decorateRequest("key", undefined as unknown as KeyHolder["key"]);
  // Each request in a scope of its own, where the key lookup leaves the catalog install it read
  // for the request's first catalog check (src/catalog/publishing/request-install.ts); dropped as the
  // response goes, so work the request leaves running reads the catalog itself.
  app.addHook("onRequest", (_request, _reply, done) => runAsRequest(done));
  app.addHook("onSend", async () => forgetInstall());
  app.addHook("onRequest", async (request) => {
    if (isOAuthPath(request.url)) throw new AppError("not_found", NO_OAUTH);
    if (isPublicPath(request.url) || isOperatorPath(request.url)) return;
    const sent = bearerToken(request.headers.authorization);
    const holder = sent ? await authenticate(db, sent) : undefined;
    if (!holder) {
      throw new AppError(
        "unauthorized",
        sent === undefined
          ? "send the workspace key as Authorization: Bearer <key>"
          : "the workspace key is not valid",
      );
    }
    request.workspace = holder.workspace;
    request.key = holder.key;
    // Unknown paths and wrong methods go on to their 404 and 405.
    if (request.is404) return;
    if (request.routeOptions.config.manageKeys && holder.key.scope !== "admin") {
      throw new AppError(
        "key_scope",
        `this key's scope is ${holder.key.scope}: only a key of scope admin manages the workspace's keys`,
      );
    }
    if (!READ_METHODS.has(request.method) && !request.routeOptions.config.reads) requireWritable(request);
  });
}

const READ_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** Refuses a read-only key (403 key_read_only); for routes that write only on request (answer's save). */
export function requireWritable(request: FastifyRequest): void {
  if (request.key.scope === "read_only") {
    throw new AppError(
      "key_read_only",
      `this key is read-only: ${request.method} ${request.routeOptions.url} writes`,
    );
  }
}
