import type { FastifyInstance } from "fastify";
import { forgetInstall, runAsRequest } from "../catalog/index.js";
import type { Db } from "../platform/db/index.js";
import { AppError } from "../platform/errors.js";
import { authenticate, type Workspace } from "../workspaces/index.js";

declare module "fastify" {
  interface FastifyRequest {
    /** The workspace the bearer key selected; set on every non-public route. */
    workspace: Workspace;
  }
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

// Served without a key, whatever the method (so a wrong method gets 405, not 401).
const PUBLIC_PATHS = new Set(["/health", "/openapi.json"]);

export function isPublicPath(url: string): boolean {
  const path = url.split("?")[0] ?? url;
  return PUBLIC_PATHS.has(path) || isStaticPath(path);
}

/** The reference page and the console: static files that hold nothing of any workspace. */
export function isStaticPath(path: string): boolean {
  return ["/docs", "/console"].some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}

/** Spec Authentication rules 1-3: a workspace key on every route except the public ones. */
export function registerAuth(app: FastifyInstance, db: Db): void {
  app.decorateRequest("workspace", undefined as unknown as Workspace);
  // Each request in a scope of its own, where the key lookup leaves the catalog install it read
  // for the request's first catalog check (src/catalog/request-install.ts); dropped as the
  // response goes, so work the request leaves running reads the catalog itself.
  app.addHook("onRequest", (_request, _reply, done) => runAsRequest(done));
  app.addHook("onSend", async () => forgetInstall());
  app.addHook("onRequest", async (request) => {
    if (isPublicPath(request.url)) return;
    const match = BEARER.exec(request.headers.authorization ?? "");
    const workspace = match?.[1] ? await authenticate(db, match[1]) : undefined;
    if (!workspace) {
      throw new AppError(
        "unauthorized",
        match ? "the workspace key is not valid" : "send the workspace key as Authorization: Bearer <key>",
      );
    }
    request.workspace = workspace;
  });
}
