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
import type { PGlite } from "@electric-sql/pglite";

export interface MaintenanceOptions {
  /** Rows written since the last vacuum that call for one. */
  vacuumAfterRows?: number;
  /** How long writes must pause before the vacuum runs. */
  quietMs?: number;
  /** The longest a due vacuum waits for that pause. */
  maxDelayMs?: number;
}

export interface Maintenance {
  /** Rows inserted or rewritten by a committed write. */
  noteWrites(rows: number): void;
  /** Cancels a pending vacuum (closing). */
  stop(): void;
}

export function pgliteMaintenance(pglite: PGlite, options: MaintenanceOptions = {}): Maintenance {
  const vacuumAfterRows = options.vacuumAfterRows ?? 1000;
  const quietMs = options.quietMs ?? 2000;
  const maxDelayMs = options.maxDelayMs ?? 60_000;
  let sinceAnalyze = 0;
  let analyzedRows = 0;
  let sinceVacuum = 0;
  let dueSince: number | undefined;
  let timer: NodeJS.Timeout | undefined;
  let running = false;

  // Both statements analyze: the rows written so far are then counted as analyzed.
  const run = (script: "ANALYZE" | "VACUUM ANALYZE") => {
    analyzedRows += sinceAnalyze;
    sinceAnalyze = 0;
    running = true;
    void pglite
      .exec(script)
      .catch(() => undefined)
      .finally(() => {
        running = false;
      });
  };
  const arm = (ms: number) => {
    clearTimeout(timer);
    timer = setTimeout(vacuum, ms);
    timer.unref();
  };
  /** A due vacuum runs once writes paused quietMs, and at most maxDelayMs after it fell due. */
  const schedule = () => {
    const waited = performance.now() - (dueSince ?? performance.now());
    arm(Math.max(0, Math.min(quietMs, maxDelayMs - waited)));
  };
  function vacuum() {
    timer = undefined;
    if (pglite.closed) return;
    // An ANALYZE is still running: look again after a quiet period, not at once (a due vacuum
    // would otherwise re-arm a 0 ms timer until it ends).
    if (running) return arm(quietMs);
    sinceVacuum = 0;
    dueSince = undefined;
    run("VACUUM ANALYZE");
  }

  return {
    noteWrites(rows) {
      if (rows <= 0) return;
      sinceAnalyze += rows;
      sinceVacuum += rows;
      if (sinceVacuum >= vacuumAfterRows) {
        dueSince ??= performance.now();
        schedule();
      }
      if (running || sinceAnalyze < 50 + analyzedRows / 10) return;
      run("ANALYZE");
    },
    stop() {
      clearTimeout(timer);
      timer = undefined;
    },
  };
}
