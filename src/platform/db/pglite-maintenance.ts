// What autovacuum does on a server, done by the embedded database itself: PGlite has none.
// - Statistics: without them the planner guesses one row per table and picks nested loops that
//   turn quadratic (a 1,500-record vector search took 670 ms instead of 33 ms). Like
//   autovacuum's defaults, re-analyze once 50 rows plus a tenth of those already analyzed were
//   written, in the background.
// - Dead row versions: enrichment rewrites every record once, and accesses and jobs rewrite
//   rows too; only VACUUM reclaims them, and until then every scan reads them (after a 100k
//   drain, half the records table was dead rows and each touch of a hit rewrote all its
//   indexes). Once enough rows were written and writes pause (a drain finished), VACUUM
//   ANALYZE; under writes that never pause, at most a minute late.
// A write that touched one table only (a search's access marks) is counted for that table and
// maintains it alone: the whole database's ANALYZE took 2.2-2.5 s at 20k records, blocking the
// one connection, and searches alone called for one every few dozen requests (record_access
// alone: 10-23 ms).
// - A database-wide ANALYZE grows with the data (90 ms at 8k records, 1.3 s at 33k, 2 s at 140k,
//   most of it the expression indexes' statistics) and holds the one connection throughout: the
//   bench's 20k ingest and drain ran 42 of them, 13.4 s. So ANALYZE takes at most ANALYZE_SHARE of
//   the time: after a maintenance run of d ms none starts for d (1 / share - 1) ms, and the one
//   owed meanwhile runs then, whether or not more rows are written (the same run: 8, 6.3 s).
import type { PGlite } from "@electric-sql/pglite";
import { ANALYZE, type MaintenanceCommand, maintenanceSql, VACUUM_ANALYZE } from "./sql.js";

export interface MaintenanceOptions {
  /** Rows written since the last vacuum that call for one. */
  vacuumAfterRows?: number;
  /** How long writes must pause before the vacuum runs. */
  quietMs?: number;
  /** The longest a due vacuum waits for that pause. */
  maxDelayMs?: number;
}

export interface Maintenance {
  /** Rows inserted or rewritten by a committed write, in `table` only when given. */
  noteWrites(rows: number, table?: string): void;
  /** Cancels a pending vacuum (closing). */
  stop(): void;
}

/** What was written to one table, or to the whole database, since its last analyze and vacuum. */
interface Target {
  table: string | undefined;
  sinceAnalyze: number;
  analyzedRows: number;
  sinceVacuum: number;
  dueSince: number | undefined;
  timer: NodeJS.Timeout | undefined;
}

const TABLE_NAME = /^[a-z_][a-z0-9_]*$/;

/** The most of the connection's time that ANALYZE runs may take. */
const ANALYZE_SHARE = 0.1;

export function pgliteMaintenance(pglite: PGlite, options: MaintenanceOptions = {}): Maintenance {
  const vacuumAfterRows = options.vacuumAfterRows ?? 1000;
  const quietMs = options.quietMs ?? 2000;
  const maxDelayMs = options.maxDelayMs ?? 60_000;
  const targets = new Map<string, Target>();
  // One connection: a statement of one target waits for another's.
  let running = false;
  // No ANALYZE starts before this time; a due one waits for it on its timer.
  let analyzeFreeAt = 0;
  let owed: { target: Target; timer: NodeJS.Timeout | undefined } | undefined;

  const targetOf = (table: string | undefined): Target => {
    const key = table ?? "";
    let target = targets.get(key);
    if (!target) {
      if (table !== undefined && !TABLE_NAME.test(table)) throw new Error(`not a table name: ${table}`);
      target = {
        table,
        sinceAnalyze: 0,
        analyzedRows: 0,
        sinceVacuum: 0,
        dueSince: undefined,
        timer: undefined,
      };
      targets.set(key, target);
    }
    return target;
  };
  // Both statements analyze: the rows written so far are then counted as analyzed.
  const run = (target: Target, command: MaintenanceCommand) => {
    target.analyzedRows += target.sinceAnalyze;
    target.sinceAnalyze = 0;
    running = true;
    const started = performance.now();
    void pglite
      .exec(maintenanceSql(command, target.table))
      .catch(() => undefined)
      .finally(() => {
        running = false;
        const ended = performance.now();
        analyzeFreeAt = ended + (ended - started) * (1 / ANALYZE_SHARE - 1);
        if (owed) armOwed(owed.target);
      });
  };
  /** The database-wide ANALYZE, once enough rows were written since the last, when it may run. */
  function analyzeWhenDue(target: Target) {
    if (target.sinceAnalyze < 50 + target.analyzedRows / 10) return;
    if (running || performance.now() < analyzeFreeAt) armOwed(target);
    else run(target, ANALYZE);
  }
  /** Runs an owed ANALYZE when the connection is free of them (after the current run ends). */
  function armOwed(target: Target) {
    clearTimeout(owed?.timer);
    const timer = running
      ? undefined
      : setTimeout(
          () => {
            owed = undefined;
            if (!pglite.closed) analyzeWhenDue(target);
          },
          Math.max(0, analyzeFreeAt - performance.now()),
        );
    timer?.unref();
    owed = { target, timer };
  }
  const arm = (target: Target, ms: number) => {
    clearTimeout(target.timer);
    target.timer = setTimeout(() => vacuum(target), ms);
    target.timer.unref();
  };
  /** A due vacuum runs once writes paused quietMs, and at most maxDelayMs after it fell due. */
  const schedule = (target: Target) => {
    const waited = performance.now() - (target.dueSince ?? performance.now());
    arm(target, Math.max(0, Math.min(quietMs, maxDelayMs - waited)));
  };
  function vacuum(target: Target) {
    target.timer = undefined;
    if (pglite.closed) return;
    // An ANALYZE is still running: look again after a quiet period, not at once (a due vacuum
    // would otherwise re-arm a 0 ms timer until it ends).
    if (running) return arm(target, quietMs);
    target.sinceVacuum = 0;
    target.dueSince = undefined;
    run(target, VACUUM_ANALYZE);
  }

  return {
    noteWrites(rows, table) {
      if (rows <= 0) return;
      const target = targetOf(table);
      target.sinceAnalyze += rows;
      target.sinceVacuum += rows;
      if (target.sinceVacuum >= vacuumAfterRows) {
        target.dueSince ??= performance.now();
        schedule(target);
      }
      // One table's statistics follow with its vacuum: its own threshold (50 rows plus a tenth of
      // those analyzed) re-analyzed a new marks table every few searches, each time holding the
      // connection.
      if (!target.table) analyzeWhenDue(target);
    },
    stop() {
      clearTimeout(owed?.timer);
      owed = undefined;
      for (const target of targets.values()) {
        clearTimeout(target.timer);
        target.timer = undefined;
      }
    },
  };
}
