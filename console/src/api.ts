import { forgetKey, storedKey } from "./session";

/** An RFC 9457 problem answered by the API; `detail` is what the console shows. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly problem: Record<string, unknown>,
  ) {
    super(detail);
  }
}

type Query = Record<string, string | number | boolean | string[] | undefined | null>;

export interface RequestOptions {
  query?: Query;
  body?: unknown;
  signal?: AbortSignal;
  /** A key to try instead of the stored one (sign-in checks a pasted key before keeping it). */
  key?: string;
}

const signOutListeners = new Set<() => void>();

/** Called when the API refuses the stored key (401): the console goes back to sign-in. */
export function onSignedOut(listener: () => void): () => void {
  signOutListeners.add(listener);
  return () => signOutListeners.delete(listener);
}

export function signOut(): void {
  forgetKey();
  for (const listener of signOutListeners) listener();
}

export function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === "") continue;
    for (const item of Array.isArray(value) ? value : [value]) params.append(name, String(item));
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

/** Calls the public API with the workspace key; any answer other than 2xx throws an ApiError. */
export async function api<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  const key = options.key ?? storedKey();
  const headers: Record<string, string> = { accept: "application/json" };
  if (key) headers.authorization = `Bearer ${key}`;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  let response: Response;
  try {
    response = await fetch(withQuery(path, options.query), {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: options.signal,
      credentials: "omit",
      cache: "no-store",
    });
  } catch (error) {
    // No answer at all (the server stopped, the network is down): said as such, not "Failed to fetch".
    if (options.signal?.aborted) throw error;
    throw new ApiError(
      0,
      "unreachable",
      `The Engram server at ${location.origin} cannot be reached: check that it is running, then try again.`,
      {},
    );
  }
  const text = await response.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = { detail: text };
  }
  if (!response.ok) {
    const problem = (body ?? {}) as Record<string, unknown>;
    const detail =
      typeof problem.detail === "string" ? problem.detail : `${response.status} ${response.statusText}`;
    const code = typeof problem.code === "string" ? problem.code : "error";
    if (response.status === 401 && options.key === undefined) signOut();
    throw new ApiError(response.status, code, detail, problem);
  }
  return body as T;
}
