// npm run bench:claim — the job queue's own cost (a benchmark, not a test): with 100k queued
// enrichment jobs spread over 1, 10 and 100 workspaces (each spread in a fresh database), the
// time of one claim of 2 jobs (the worker's default concurrency) and of one enqueue in its own
// transaction, p50 and p95 over three rounds of BENCH_CLAIM_RUNS each, and the median round's p50.
// Each claimed job is then marked succeeded outside the timing, so the queue stays at ~100k.
// Uses DATABASE_URL when set (a scratch database per spread), else in-memory PGlite.
// BENCH_CLAIM_JOBS (100000), BENCH_CLAIM_SPREADS ("1,10,100"), BENCH_CLAIM_RUNS (300).
import { prepareDatabase } from "../src/database.js";
import type { Db } from "../src/platform/db/index.js";
import { claimJobs, enqueue } from "../src/worker/queue.js";
import { createWorkspace } from "../src/workspaces/index.js";
import { openBenchDb } from "./setup.js";

const JOBS = Number(process.env.BENCH_CLAIM_JOBS ?? 100_000);
const SPREADS = (process.env.BENCH_CLAIM_SPREADS ?? "1,10,100").split(",").map(Number);
const RUNS = Number(process.env.BENCH_CLAIM_RUNS ?? 300);
// Every kind the worker of `engram serve` handles.
const KINDS = ["enrich", "derive", "backfill", "reindex", "index_delete"];

async function hasTurns(db: Db): Promise<boolean> {
  const { rows } = await db.query(
    "SELECT 1 FROM information_schema.columns WHERE table_name = 'jobs' AND column_name = 'turn'",
  );
  return rows.length > 0;
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
const summary = (ms: number[]) => {
  const sorted = [...ms].sort((a, b) => a - b);
  return { p50: Number(quantile(sorted, 0.5).toFixed(3)), p95: Number(quantile(sorted, 0.95).toFixed(3)) };
};

for (const spread of SPREADS) {
  const bench = await openBenchDb();
  const { db } = bench;
  try {
    await prepareDatabase(db);
    const workspaces: string[] = [];
    for (let w = 0; w < spread; w++) workspaces.push((await createWorkspace(db, `bench-claim-${w}`)).id);
    const began = performance.now();
    // One statement, as enqueue() would have queued them cycling through the workspaces while
    // nothing ran: a workspace's n-th job takes turn n (where the schema has turns; migration 0025).
    const turns = await hasTurns(db);
    await db.query(
      `INSERT INTO jobs (workspace_id, kind, payload, run_after${turns ? ", turn" : ""})
       SELECT ($1::uuid[])[1 + i % $3], 'enrich', '{"record_ids":[]}', now() - make_interval(secs => $2 - i)
         ${turns ? ", i / $3" : ""}
       FROM generate_series(0, $2 - 1) AS i`,
      [workspaces, JOBS, spread],
    );
    if (turns) {
      // The fill agrees with the queue: the next job of workspace 0 takes the turn after its last.
      const next = await db.transaction(async (tx) => {
        const { jobId } = await enqueue(tx, {
          workspaceId: workspaces[0] as string,
          kind: "enrich",
          payload: {},
        });
        return (await tx.query<{ turn: string }>("SELECT turn FROM jobs WHERE id = $1", [jobId])).rows[0]
          ?.turn;
      });
      if (Number(next) !== Math.ceil(JOBS / spread))
        throw new Error(`enqueue gave turn ${next} after the fill`);
    }
    const fillSeconds = (performance.now() - began) / 1000;
    // A settled database, as the search bench has it.
    await db.exec("VACUUM ANALYZE jobs");

    // Three rounds each (other work on the machine drifts), and the median round.
    const rounds: { claim: ReturnType<typeof summary>; enqueue: ReturnType<typeof summary> }[] = [];
    for (let round = 0; round < 3; round++) {
      const claims: number[] = [];
      for (let run = 0; run < RUNS; run++) {
        const t0 = performance.now();
        const jobs = await claimJobs(db, { owner: "bench", kinds: KINDS, leaseSeconds: 60, limit: 2 });
        claims.push(performance.now() - t0);
        if (jobs.length !== 2) throw new Error(`claimed ${jobs.length} jobs, expected 2`);
        await db.query(
          "UPDATE jobs SET state = 'succeeded', finished_at = now() WHERE id = ANY($1::uuid[])",
          [jobs.map((job) => job.id)],
        );
      }
      const enqueues: number[] = [];
      for (let run = 0; run < RUNS; run++) {
        const workspaceId = workspaces[run % spread] as string;
        const t0 = performance.now();
        await db.transaction((tx) =>
          enqueue(tx, { workspaceId, kind: "enrich", payload: { record_ids: [] } }),
        );
        enqueues.push(performance.now() - t0);
      }
      rounds.push({ claim: summary(claims), enqueue: summary(enqueues) });
    }
    const middle = (pick: (round: (typeof rounds)[number]) => number) =>
      [...rounds].map(pick).sort((a, b) => a - b)[1];
    console.log(
      JSON.stringify({
        db: bench.label,
        jobs: JOBS,
        workspaces: spread,
        fill_s: Number(fillSeconds.toFixed(1)),
        claim_p50_ms: middle((r) => r.claim.p50),
        enqueue_p50_ms: middle((r) => r.enqueue.p50),
        rounds,
      }),
    );
  } finally {
    await bench.close();
  }
}
