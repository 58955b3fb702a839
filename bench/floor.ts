// The raw-SQL floor of a search mode: the exact statements each measured 1-client API request
// issued (recorded by the Db proxy, with their parameters), replayed directly on the database
// in the same order, with no HTTP, validation, ranking or JSON around them. A request's floor
// is the sum of its statements. All of them count, including the auth and catalog lookups and
// the access mark (`INSERT INTO record_access`) every search ends with: that write is SQL the request
// issues and waits for, so leaving it out would bill its commit to "API overhead". Its own p50
// is reported beside the floor (touch_p50).
import { type Budget, percentile } from "./clients.js";
import { isTouch, type Statement } from "./recorder.js";
import type { System } from "./setup.js";

export interface Floor {
  /** Requests replayed (the 1-client requests, unless the time budget ran out first). */
  n: number;
  /** Summed statement time per request, ms. */
  p50: number;
  p95: number;
  /** The last_accessed UPDATE alone, p50 ms (part of the floor). */
  touch_p50: number;
  /** Statements per request (median), including auth, catalog check and touch. */
  statements: number;
}

export interface Replayed {
  floor: Floor;
  /** Floor of request i, ms (aligned with the recorded list; may be shorter). */
  totals: number[];
  /** Index and time of the slowest statement of each replayed request. */
  slowest: { index: number; ms: number }[];
}

const round = (x: number) => Math.round(x * 100) / 100;

export async function replayFloor(
  system: System,
  recorded: Statement[][],
  budget: Budget,
): Promise<Replayed> {
  const totals: number[] = [];
  const touches: number[] = [];
  const slowest: { index: number; ms: number }[] = [];
  const deadline = performance.now() + budget.seconds * 1000;
  for (const statements of recorded) {
    if (performance.now() > deadline) break;
    let total = 0;
    let worst = { index: -1, ms: -1 };
    for (const [index, statement] of statements.entries()) {
      const t0 = performance.now();
      if (statement.repeated) await system.db.queryRepeated(statement.sql, statement.params ?? []);
      else await system.db.query(statement.sql, statement.params);
      const ms = performance.now() - t0;
      total += ms;
      if (isTouch(statement)) touches.push(ms);
      else if (ms > worst.ms) worst = { index, ms };
    }
    totals.push(total);
    slowest.push(worst);
  }
  const floor = {
    n: totals.length,
    p50: round(percentile(totals, 50)),
    p95: round(percentile(totals, 95)),
    touch_p50: touches.length ? round(percentile(touches, 50)) : 0,
    statements: percentile(
      recorded.map((r) => r.length),
      50,
    ),
  };
  return { floor, totals, slowest };
}

export interface Explained {
  /** Floor of the request explained (the median one), ms, and its slowest statement's time. */
  request_floor_ms: number;
  statement_ms: number;
  sql: string;
  plan: string[];
}

/**
 * EXPLAIN (ANALYZE, BUFFERS) of the slowest statement of the median request: where the floor
 * of a typical request goes. Kept in the results JSON so a slow mode carries its own evidence.
 */
export async function explainMedian(
  system: System,
  recorded: Statement[][],
  replayed: Replayed,
): Promise<Explained | undefined> {
  const order = replayed.totals.map((ms, i) => ({ ms, i })).sort((a, b) => a.ms - b.ms);
  const median = order[Math.floor((order.length - 1) / 2)];
  if (!median) return undefined;
  const slowest = replayed.slowest[median.i];
  const statement = slowest ? recorded[median.i]?.[slowest.index] : undefined;
  if (!slowest || !statement) return undefined;
  const { rows } = await system.db.query<{ "QUERY PLAN": string }>(
    `EXPLAIN (ANALYZE, BUFFERS) ${statement.sql}`,
    statement.params,
  );
  return {
    request_floor_ms: round(median.ms),
    statement_ms: round(slowest.ms),
    sql: statement.sql.replace(/\s+/g, " ").trim(),
    plan: rows.map((row) => row["QUERY PLAN"]),
  };
}
