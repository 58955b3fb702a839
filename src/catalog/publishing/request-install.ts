// The active catalog install as the request's key lookup read it (http/auth.ts), so the request's
// first catalog check needs no statement of its own: one round trip less on every request. Kept
// per request (AsyncLocalStorage, entered for each request) until the response, and taken by the
// request's first catalog check, whatever it reads through: only a check on the database the
// key lookup ran on uses it, never one inside a transaction (a publish reads its own snapshot
// first, so later checks in its request read the new install). What it answers is the install
// active when the request began, as if the check had run then.
import { AsyncLocalStorage } from "node:async_hooks";

interface ReadInstall {
  db: unknown;
  workspaceId: string;
  installId: string | null;
}

const requests = new AsyncLocalStorage<{ install?: ReadInstall }>();

/** Runs `next`, and everything it starts, as one request. */
export function runAsRequest(next: () => void): void {
  requests.run({}, next);
}

/** Keeps the install the key lookup read for the request's first catalog check. */
export function rememberInstall(db: unknown, workspaceId: string, installId: string | null): void {
  const request = requests.getStore();
  if (request) request.install = { db, workspaceId, installId };
}

/** Drops what the request kept: work it leaves running reads the catalog itself. */
export function forgetInstall(): void {
  const request = requests.getStore();
  if (request) request.install = undefined;
}

/**
 * The install id (null: none) kept for this request, when `db` is the database it was read on
 * and `workspaceId` its workspace; undefined when the caller must read it. Taken once.
 */
export function takeInstall(db: unknown, workspaceId: string): string | null | undefined {
  const request = requests.getStore();
  const install = request?.install;
  if (!request || !install) return undefined;
  request.install = undefined;
  return install.db === db && install.workspaceId === workspaceId ? install.installId : undefined;
}
