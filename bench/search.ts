// Search figures per mode: latency and throughput at 1 and 8 concurrent clients through the
// HTTP API, beside the raw-SQL floor of the same requests (bench/floor.ts).
import { type Api, type Budget, HttpError, type Latency, latency, percentile, runLoad } from "./clients.js";
import { type Explained, explainMedian, type Floor, replayFloor } from "./floor.js";
import { MODES, type ModeName, type Request, requestMakers, SAME_REQUESTS_AS } from "./modes.js";
import { rng, seedOf } from "./random.js";
import type { Statement } from "./recorder.js";
import type { System } from "./setup.js";
import type { Vocabulary } from "./vocabulary.js";

export interface ModeFigures {
  x1: Latency;
  x8: Latency;
  floor: Floor;
  /** SQL time as seen inside the API request (p50 of the per-request sum), ms. */
  sql_in_api_p50: number;
  /** API p50 at 1 client divided by floor p50. */
  ratio: number;
  /**
   * Median over requests of (API time / floor time of the same request). Steadier than the
   * ratio of p50s when a mode mixes fast and slow requests (scoped and unscoped).
   */
  ratio_paired: number;
  /** Share of measured requests that found nothing (a sanity check on the queries). */
  empty_share: number;
  /** The first 5xx answer, when any request failed (e.g. 503 under overload). */
  first_error?: string;
  explain?: Explained;
}

const WARMUP = 10;

interface Found {
  hits?: unknown[];
  manifest?: { record_ids: unknown[] };
  input_record_ids?: unknown[];
  input_ids?: unknown[];
}

/** The tool result inside a JSON-RPC reply; a tool refusal is a bad bench request. */
function mcpResult(reply: unknown, request: Request): Found {
  if (request.path !== "/mcp") return reply as Found;
  const result = (reply as { result?: { isError?: boolean; structuredContent?: Found } }).result;
  if (!result?.structuredContent || result.isError) {
    throw new Error(`tools/call failed: ${JSON.stringify(reply).slice(0, 2000)}`);
  }
  return result.structuredContent;
}

const round = (x: number) => Math.round(x * 100) / 100;

export function requests(make: (random: () => number) => Request, seed: number, label: string, n: number) {
  const random = rng(seedOf(seed, label));
  return Array.from({ length: n }, () => make(random));
}

export async function measureSearch(
  system: System,
  api: Api,
  key: string,
  vocabulary: Vocabulary,
  options: { seed: number; records: number; budget: Budget; modes: ModeName[] },
  log: (line: string) => void,
): Promise<Partial<Record<ModeName, ModeFigures>>> {
  const makers = requestMakers(vocabulary, options.records);
  const out: Partial<Record<ModeName, ModeFigures>> = {};
  for (const mode of MODES.filter((m) => options.modes.includes(m))) {
    const make = makers[mode];
    let firstError: string | undefined;
    // Hits found, or undefined when the service answered 5xx: under overload that is a measured
    // outcome (counted as an error), while a 4xx means the bench sent a bad request and aborts.
    const send = async (request: Request): Promise<number | undefined> => {
      try {
        // Searches and views answer hits; an artifact render, the records in its manifest; a
        // context its input_record_ids; an answer its input_ids; an MCP tools/call, the view's
        // hits as structuredContent (an isError result aborts the run).
        const reply = await (request.method === "GET"
          ? api.get<Found>(key, request.path, request.body)
          : api.post<Found>(key, request.path, request.body, request.headers));
        const body = mcpResult(reply, request);
        return (
          body.hits?.length ??
          body.manifest?.record_ids.length ??
          body.input_record_ids?.length ??
          body.input_ids?.length ??
          0
        );
      } catch (error) {
        if (!(error instanceof HttpError) || error.status < 500) throw error;
        firstError ??= error.message;
        return undefined;
      }
    };
    // Warm-up (plans, caches, JIT), not measured; a third of the time budget at most.
    const label = SAME_REQUESTS_AS[mode] ?? mode;
    const warmup = requests(make, options.seed, `warmup:${label}`, WARMUP);
    await runLoad(1, { requests: WARMUP, seconds: options.budget.seconds / 3 }, async (i) => {
      await send(warmup[i] as Request);
      return undefined;
    });

    const measured = requests(make, options.seed, `measure:${label}`, options.budget.requests);
    const recorded: Statement[][] = [];
    /** API time of request i at 1 client (NaN when it failed), to pair with its floor. */
    const apiTimes: number[] = [];
    let empty = 0;
    const x1 = await runLoad(1, options.budget, async (i) => {
      system.recorder.start();
      const t0 = performance.now();
      let hits: number | undefined;
      try {
        hits = await send(measured[i] as Request);
      } finally {
        apiTimes.push(hits === undefined ? Number.NaN : performance.now() - t0);
        recorded.push(system.recorder.stop());
      }
      if (hits === 0) empty++;
      return hits === undefined ? false : undefined;
    });
    const replayed = await replayFloor(system, recorded, options.budget);
    const x8 = await runLoad(8, options.budget, async (i) =>
      (await send(measured[i] as Request)) === undefined ? false : undefined,
    );
    const api1 = latency(x1);
    const floor = replayed.floor;
    const sqlInApi = recorded.map((statements) => statements.reduce((sum, s) => sum + s.ms, 0));
    const figures: ModeFigures = {
      x1: api1,
      x8: latency(x8),
      floor,
      sql_in_api_p50: round(percentile(sqlInApi, 50)),
      ratio: round(api1.p50 / floor.p50),
      ratio_paired: round(
        percentile(
          replayed.totals
            .map((floorMs, i) => (apiTimes[i] as number) / floorMs)
            .filter((r) => !Number.isNaN(r)),
          50,
        ),
      ),
      empty_share: round(empty / Math.max(1, x1.times.length)),
      ...(firstError ? { first_error: firstError } : {}),
      explain: await explainMedian(system, recorded, replayed),
    };
    out[mode] = figures;
    log(
      `  ${mode.padEnd(19)} x1 p50 ${api1.p50} ms (n ${api1.n}), x8 p50 ${figures.x8.p50} ms (n ${figures.x8.n}, 5xx ${figures.x8.errors}), ` +
        `floor p50 ${floor.p50} ms, ratio ${figures.ratio} (paired ${figures.ratio_paired})`,
    );
  }
  return out;
}
