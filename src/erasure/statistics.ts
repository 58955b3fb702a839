// Planner statistics after an erasure (docs/operations.md, "What keeps a copy after an
// erasure"): ANALYZE copies sampled values of columns and index expressions into pg_statistic
// (pg_stats), where an erasure's DELETE does not reach them, so the erased entity's name and
// words stayed there until the next ANALYZE (on PGlite, for as long as no more writes called for
// one). The erasure's index-deletion job, queued after its commit, analyzes the tables erasures
// change again: their live rows no longer hold what it erased. A job and not the request itself:
// the text cells' and field indexes' expressions make a records ANALYZE cost seconds on a large
// table (it reads a bounded sample, 300 × default_statistics_target rows).
import type { Db } from "../platform/db/index.js";
import * as sql from "./sql.js";

interface Run {
  /** The database's clock as the run began, once read. */
  startedAt?: Date;
  done: Promise<void>;
}

interface State {
  running?: Run;
  /** The run to start when the running one ends: shared by every erasure that asks meanwhile. */
  queued?: Promise<void>;
  /** When the latest successful run began. */
  analyzedFrom?: Date;
}

const states = new WeakMap<Db, State>();

/**
 * Analyzes the tables erasures change, unless a run that began after `since` (a time after the
 * erasure's commit, on the database's clock) has done it already or is doing it. A burst of
 * erasures thus costs one or two runs in a process, not one each (they would also queue on the
 * tables' locks).
 */
export function refreshStatistics(db: Db, since: Date): Promise<void> {
  let state = states.get(db);
  if (!state) {
    state = {};
    states.set(db, state);
  }
  const s = state;
  if (s.analyzedFrom && s.analyzedFrom > since) return Promise.resolve();
  const running = s.running;
  if (!running) return run(db, s).done;
  if (running.startedAt && running.startedAt > since) return running.done;
  // The running one may have sampled before this erasure committed: the next one serves it.
  s.queued ??= running.done
    .catch(() => undefined)
    .then(() => {
      s.queued = undefined;
      return run(db, s).done;
    });
  return s.queued;
}

function run(db: Db, s: State): Run {
  const current: Run = { done: Promise.resolve() };
  current.done = (async () => {
    const { rows } = await db.query<{ at: Date }>(sql.STATISTICS_CLOCK);
    const startedAt = rows[0]?.at as Date;
    current.startedAt = startedAt;
    await db.query(sql.ANALYZE_ERASED);
    if (!s.analyzedFrom || startedAt > s.analyzedFrom) s.analyzedFrom = startedAt;
  })().finally(() => {
    if (s.running === current) s.running = undefined;
  });
  s.running = current;
  return current;
}
