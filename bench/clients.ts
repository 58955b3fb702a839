// HTTP clients of the bench: one undici Pool of keep-alive connections to the listening app,
// shared by every simulated client, and a load loop bounded by a request count and a time
// budget (whichever comes first), so one slow mode cannot stall the run.
import { Pool } from "undici";

/** A response other than 200; the bench aborts on it except where a 5xx is a measured outcome. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
    path: string,
  ) {
    super(`${path} answered ${status}: ${body.slice(0, 4000)}`);
  }
}

export class Api {
  private readonly pool: Pool;

  constructor(url: string, connections: number) {
    // pipelining 1: one request per connection at a time, like separate agent processes.
    // Idle sockets are closed by the client after a few seconds: one idle through a long drain
    // was reset by the server as the next phase reused it (ECONNRESET ended a PGlite run).
    this.pool = new Pool(url, {
      connections,
      pipelining: 1,
      keepAliveTimeout: 4_000,
      keepAliveMaxTimeout: 4_000,
    });
  }

  /** POSTs JSON with a workspace key; anything but 200 aborts the run with the body printed. */
  async post<T = unknown>(
    key: string,
    path: string,
    body: unknown,
    headers: Record<string, string> = {},
  ): Promise<T> {
    const res = await this.pool.request({
      method: "POST",
      path,
      headers: { ...headers, authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new HttpError(res.statusCode, text, path);
    return JSON.parse(text) as T;
  }

  /** GETs path?query with a workspace key; anything but 200 aborts like post. */
  async get<T = unknown>(key: string, path: string, query: Record<string, unknown>): Promise<T> {
    const search = new URLSearchParams(Object.entries(query).map(([name, value]) => [name, String(value)]));
    const res = await this.pool.request({
      method: "GET",
      path: `${path}?${search}`,
      headers: { authorization: `Bearer ${key}` },
    });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new HttpError(res.statusCode, text, path);
    return JSON.parse(text) as T;
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

export interface Budget {
  requests: number;
  seconds: number;
}

export interface LoadResult {
  /** Latency of each successful request, ms, in completion order. */
  times: number[];
  /** Requests whose task answered false (failed, counted apart, not in times). */
  failed: number;
  /** Wall time of the whole run, s. */
  elapsed: number;
}

/**
 * Runs `clients` concurrent loops of `task(i)` until the budget is spent: no new request starts
 * after `requests` were started or `seconds` passed; requests in flight finish.
 */
export async function runLoad(
  clients: number,
  budget: Budget,
  task: (i: number) => Promise<undefined | false>,
): Promise<LoadResult> {
  const times: number[] = [];
  let failed = 0;
  const started = performance.now();
  const deadline = started + budget.seconds * 1000;
  let next = 0;
  const loop = async () => {
    while (next < budget.requests && performance.now() < deadline) {
      const i = next++;
      const t0 = performance.now();
      if ((await task(i)) === false) failed++;
      else times.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: clients }, loop));
  return { times, failed, elapsed: (performance.now() - started) / 1000 };
}

/** Nearest-rank percentile of unsorted values. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] as number;
}

export interface Latency {
  n: number;
  /** Requests answered 5xx (not in the percentiles). */
  errors: number;
  p50: number;
  p95: number;
  p99: number;
  rps: number;
}

export function latency(result: LoadResult): Latency {
  const round = (x: number) => Math.round(x * 100) / 100;
  return {
    n: result.times.length,
    errors: result.failed,
    p50: round(percentile(result.times, 50)),
    p95: round(percentile(result.times, 95)),
    p99: round(percentile(result.times, 99)),
    rps: round(result.times.length / result.elapsed),
  };
}
