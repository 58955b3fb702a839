// What a scrape reads when it happens: the queue and the enrichment lag from the database, the
// pool from the adapter. A database that cannot be read sets engram_database_up to 0, leaves the
// job counts out and the lag NaN (unknown, not none); the rest of the scrape still answers.
// Finished jobs (succeeded, cancelled) are not counted here: their rate is
// engram_job_duration_seconds_count by outcome.
import type { Db } from "../platform/db/index.js";
import type { Definitions } from "./definitions.js";
import * as sql from "./sql.js";

/** The scrape-time reads of one registry; `kinds` are the job kinds its scrapes have seen. */
async function readDatabase(db: Db, metrics: Definitions, kinds: Set<string>): Promise<void> {
  const { rows: jobs } = await db.query<{ kind: string; state: string; n: number }>(sql.JOB_COUNTS);
  const { rows: unready } = await db.query<{ age: number }>(sql.OLDEST_UNREADY);
  // Every open state of every kind seen so far, so a count that empties reads 0 rather than vanishing.
  for (const row of jobs) kinds.add(row.kind);
  for (const kind of kinds) {
    for (const state of sql.OPEN_JOB_STATES) metrics.jobs.set({ kind, state }, 0);
  }
  for (const row of jobs) metrics.jobs.set({ kind: row.kind, state: row.state }, row.n);
  metrics.oldestUnready.set(Math.max(0, unready[0]?.age ?? 0));
}

export async function readAtScrape(db: Db, metrics: Definitions, kinds: Set<string>): Promise<void> {
  const pool = db.connections();
  metrics.poolOpen.set(pool.open);
  metrics.poolMax.set(pool.max);
  metrics.poolIdle.set(pool.idle);
  metrics.poolWaiting.set(pool.waiting);
  metrics.jobs.reset();
  try {
    await readDatabase(db, metrics, kinds);
    metrics.databaseUp.set(1);
  } catch {
    metrics.oldestUnready.set(Number.NaN);
    metrics.databaseUp.set(0);
  }
}
