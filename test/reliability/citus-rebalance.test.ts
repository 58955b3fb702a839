// A Citus cluster with workers grows by one node and its shards are rebalanced while writers and
// searchers keep going: every acknowledged write is present exactly once afterwards, no reply is a
// 5xx but 503 with Retry-After, and every search answers 200. Runs only with CITUS_REBALANCE=1
// against a cluster started by `citus-cluster up --workers 2` (scripts/citus-multinode.sh), which
// it grows to 3 workers; the figures it prints go into RELIABILITY.md.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Worker } from "../../src/worker/runner.js";
import { createTestApp, type TestApp } from "../support/app.js";
import { nodeUrl, withClient } from "../support/citus.js";
import { percentile } from "../support/latency.js";
import { waitFor } from "../support/wait.js";
import { startTestWorker } from "../support/worker.js";

// The workplace's cluster tool, beside the repository (as .ci/run and the script find it).
const CLUSTER_TOOL =
  process.env.CITUS_CLUSTER_TOOL ??
  fileURLToPath(new URL("../../../shared/tools/citus-cluster", import.meta.url));
const CLUSTER_DIR = process.env.CITUS_CLUSTER_DIR ?? "/var/lib/postgresql/citus-multi";
const WORKSPACES = 8;
const WRITERS = 4;
const SEARCHERS = 3;
const ROWS_PER_BATCH = 5;
/** Load before the node is added: the "before" latency figures. */
const WARMUP_MS = 15_000;
/** Load kept up after the rebalance finished. */
const AFTER_MS = 2_000;
const REBALANCE_TIMEOUT_MS = 240_000;

type Phase = "before" | "during" | "after";
interface Sample {
  kind: "write" | "read";
  phase: Phase;
  status: number;
  ms: number;
  retryAfter: boolean;
}

describe.runIf(process.env.CITUS_REBALANCE === "1")("a Citus rebalance onto a new worker under load", () => {
  let t: TestApp;
  let worker: Worker | undefined;
  let base = "";
  let dbName = "";
  let coordUrl = "";
  let newNode: { host: string; port: number } | undefined;
  let newNodeHasDb = false;
  const spaces: { id: string; key: string }[] = [];
  const entities = ["c0", "c1", "c2", "c3", "c4"];

  beforeAll(async () => {
    const cluster = inject("citusCluster");
    if (!cluster || cluster.workers.length === 0) {
      throw new Error("CITUS_REBALANCE=1 needs DATABASE_URL on a Citus coordinator with workers");
    }
    const last = cluster.workers[cluster.workers.length - 1] as { host: string; port: number };
    newNode = { host: last.host, port: last.port + 1 };
    t = await createTestApp();
    coordUrl = t.testDb.url as string;
    dbName = new URL(coordUrl).pathname.slice(1);
    for (let i = 0; i < WORKSPACES; i++) {
      const ws = await t.workspace(`rebalance-${i}`);
      spaces.push({ id: ws.id, key: ws.key });
      await t.publishExample(ws.headers);
      await t.writeRecords(
        ws.headers,
        Array.from({ length: 20 }, (_, j) => ({
          collection: "customer_events",
          entity: entities[j % entities.length],
          type: j % 2 ? "ticket" : "call",
          text: `customer ${entities[j % entities.length]} reported ${["a refund", "a login failure", "slow pages", "a billing error"][j % 4]} (${j})`,
          content: { channel: ["email", "chat", "phone", "web"][j % 4], priority: (j % 5) + 1 },
        })),
      );
    }
    // Derivations too (the example's accumulator trigger, on the fake model): more writes under load.
    worker = await startTestWorker(t.db, {}, { derive: true });
    await waitFor(
      async () => {
        const { rows } = await t.db.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM records WHERE workspace_id = ANY($1::uuid[]) AND NOT ready",
          [spaces.map((s) => s.id)],
        );
        return rows[0]?.n === 0;
      },
      60_000,
      100,
    );
    base = await t.app.listen({ port: 0, host: "127.0.0.1" });
  }, 180_000);

  afterAll(async () => {
    await worker?.stop();
    await t?.close();
    // The harness drops the database from the nodes it knew at setup; the new worker is ours.
    if (newNode && newNodeHasDb) {
      await withClient(nodeUrl(coordUrl, newNode, "postgres"), (c) =>
        c.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`),
      );
    }
  }, 120_000);

  it("keeps every acknowledged write exactly once and answers throughout", { timeout: 600_000 }, async () => {
    const node = newNode as { host: string; port: number };
    let phase: Phase = "before";
    let stop = false;
    const samples: Sample[] = [];
    const readFailures: string[] = [];
    const serverErrors: string[] = [];
    const networkErrors: string[] = [];
    /** Acknowledged writes: record id → [workspace, dedupe key]. */
    const acked = new Map<string, { ws: string; key: string }>();

    const call = async (kind: Sample["kind"], key: string, method: string, path: string, body?: object) => {
      const started = performance.now();
      const at = phase;
      try {
        const res = await fetch(`${base}${path}`, {
          method,
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          ...(body ? { body: JSON.stringify(body) } : {}),
        });
        const text = await res.text();
        const retryAfter = res.headers.get("retry-after") !== null;
        samples.push({ kind, phase: at, status: res.status, ms: performance.now() - started, retryAfter });
        if (res.status >= 500 && !(res.status === 503 && retryAfter)) {
          serverErrors.push(
            `${new Date().toISOString()} (${at}) ${method} ${path} ${res.status} ${text.slice(0, 300)}`,
          );
        }
        return { status: res.status, text, retryAfter };
      } catch (error) {
        networkErrors.push(`${method} ${path}: ${String(error)}`);
        return { status: 0, text: "", retryAfter: false };
      }
    };

    const writer = async (w: number) => {
      for (let n = 0; !stop; n++) {
        const space = spaces[(w + n) % spaces.length] as { id: string; key: string };
        const records = Array.from({ length: ROWS_PER_BATCH }, (_, i) => ({
          collection: "customer_events",
          entity: entities[(n + i) % entities.length],
          type: "ticket",
          text: `writer ${w} batch ${n} row ${i}: ${["refund", "login failure", "slow pages", "billing error"][i % 4]}`,
          dedupe_key: `w${w}-b${n}-r${i}`,
        }));
        // A 503 with Retry-After is retried with the same dedupe keys, as a client would.
        for (let attempt = 0; attempt < 20; attempt++) {
          const res = await call("write", space.key, "POST", "/records", { records });
          if (res.status === 200) {
            const body = JSON.parse(res.text) as {
              inserted: { index: number; id: string }[];
              duplicates: { index: number; id: string }[];
            };
            for (const row of [...body.inserted, ...body.duplicates]) {
              acked.set(row.id, {
                ws: space.id,
                key: (records[row.index] as { dedupe_key: string }).dedupe_key,
              });
            }
            break;
          }
          await new Promise((resolve) => setTimeout(resolve, res.retryAfter ? 200 : 100));
          if (res.status !== 503 && res.status !== 0) break;
        }
      }
    };

    const searcher = async (s: number) => {
      const requests: [string, string, object?][] = [
        ["POST", "/search", { mode: "hybrid", q: "refund billing", k: 10 }],
        ["POST", "/search", { mode: "text", q: "slow pages", k: 10 }],
        ["GET", "/document?entity=c1"],
        ["GET", "/timeline?entity=c2&limit=20"],
      ];
      for (let n = 0; !stop; n++) {
        const space = spaces[(s * 3 + n) % spaces.length] as { id: string; key: string };
        const [method, path, body] = requests[n % requests.length] as [string, string, object?];
        const res = await call("read", space.key, method, path, body);
        if (res.status !== 200)
          readFailures.push(`${method} ${path} ${res.status} ${res.text.slice(0, 300)}`);
      }
    };

    const sql = <T extends pg.QueryResultRow>(text: string, params?: unknown[]) =>
      withClient(coordUrl, async (c) => (await c.query<T>(text, params)).rows);
    const placements = () =>
      sql<{ nodeport: number; shards: number }>(
        `SELECT nodeport, count(*)::int AS shards FROM citus_shards
         WHERE table_name = 'records'::regclass GROUP BY nodeport ORDER BY nodeport`,
      );

    const load = [
      ...Array.from({ length: WRITERS }, (_, w) => writer(w)),
      ...Array.from({ length: SEARCHERS }, (_, s) => searcher(s)),
    ];
    let rebalanceMs = 0;
    let jobSeconds = 0;
    let moves = 0;
    let before: { nodeport: number; shards: number }[] = [];
    let after: { nodeport: number; shards: number }[] = [];
    let jobState = "";
    let settingsOnNewNode = "";
    try {
      await new Promise((resolve) => setTimeout(resolve, WARMUP_MS));
      before = await placements();

      // The third worker: the tool adds it for the `engram` database; this test's database is
      // created on it (as test/support/citus.ts does for the others) and registered here.
      await promisify(execFile)(
        CLUSTER_TOOL,
        ["up", "--workers", String(before.length + 1), "--port", String(new URL(coordUrl).port)],
        {
          env: { ...process.env, CITUS_CLUSTER_DIR: CLUSTER_DIR },
        },
      );
      await withClient(nodeUrl(coordUrl, node, "postgres"), (c) => c.query(`CREATE DATABASE ${dbName}`));
      newNodeHasDb = true;
      await withClient(nodeUrl(coordUrl, node, dbName), async (c) => {
        await c.query("CREATE EXTENSION citus");
        await c.query("CREATE EXTENSION vector");
      });
      phase = "during";
      const started = performance.now();
      await sql("SELECT citus_add_node($1, $2)", [node.host, node.port]);
      // Shard moves use logical replication (the default transfer mode), which needs a replica
      // identity on every distributed table: each has a primary key (asserted here).
      const noIdentity = await sql<{ table: string }>(
        `SELECT p.logicalrelid::text AS table FROM pg_dist_partition p JOIN pg_class c ON c.oid = p.logicalrelid
         WHERE p.partmethod = 'h' AND NOT (c.relreplident IN ('f', 'i')
           OR (c.relreplident = 'd' AND EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.oid AND i.indisprimary)))`,
      );
      expect(noIdentity, "distributed tables without a replica identity").toEqual([]);
      const [{ job_id }] = (await sql<{ job_id: string }>("SELECT citus_rebalance_start() AS job_id")) as [
        { job_id: string },
      ];
      await waitFor(
        async () => {
          const rows = await sql<{ state: string }>(
            "SELECT state::text FROM citus_rebalance_status() WHERE job_id = $1",
            [job_id],
          );
          jobState = rows[0]?.state ?? "";
          return ["finished", "failed", "cancelled", "finished_with_failure"].includes(jobState);
        },
        REBALANCE_TIMEOUT_MS,
        250,
      );
      rebalanceMs = performance.now() - started;
      const tasks = await sql<{ status: string; task: string; n: number }>(
        `SELECT status::text, substring(command from 'SELECT pg_catalog\\.(\\w+)') AS task, count(*)::int AS n
         FROM pg_dist_background_task WHERE job_id = $1 GROUP BY 1, 2 ORDER BY 2`,
        [job_id],
      );
      jobSeconds = (
        await sql<{ s: number }>(
          "SELECT extract(epoch FROM finished_at - started_at)::float8 AS s FROM pg_dist_background_job WHERE job_id = $1",
          [job_id],
        )
      )[0]?.s as number;
      console.log(`rebalance: job ${job_id} ${jobState}, tasks ${JSON.stringify(tasks)}`);
      if (jobState !== "finished") {
        const errors = await sql<{ message: string }>(
          "SELECT message FROM pg_dist_background_task WHERE job_id = $1 AND message IS NOT NULL AND message <> ''",
          [job_id],
        );
        console.log(`rebalance task messages:\n${errors.map((e) => e.message).join("\n")}`);
      }
      moves = tasks.filter((task) => /move/.test(task.task ?? "")).reduce((sum, task) => sum + task.n, 0);
      after = await placements();
      settingsOnNewNode = await withClient(nodeUrl(coordUrl, node, dbName), async (c) => {
        const { rows } = await c.query<{ setconfig: string[] }>(
          "SELECT setconfig FROM pg_db_role_setting s JOIN pg_database d ON d.oid = s.setdatabase WHERE d.datname = current_database()",
        );
        return JSON.stringify(rows.map((r) => r.setconfig));
      });
      phase = "after";
      await new Promise((resolve) => setTimeout(resolve, AFTER_MS));
    } finally {
      stop = true;
      await Promise.all(load);
    }

    // The queue drains (every job due has run): every record written under load becomes ready.
    const drained = performance.now();
    await waitFor(
      async () => {
        const { rows } = await t.db.query<{ n: number }>(
          // A derivation queued again within its cooldown (300 s in the example) waits: not due.
          "SELECT count(*)::int AS n FROM jobs WHERE state = 'running' OR (state = 'queued' AND run_after <= now())",
        );
        return rows[0]?.n === 0;
      },
      120_000,
      200,
    ).catch(async (error) => {
      const { rows } = await t.db.query("SELECT kind, state, count(*)::int AS n FROM jobs GROUP BY 1, 2");
      throw new Error(`the queue did not drain: ${JSON.stringify(rows)} (${error})`);
    });
    const drainMs = performance.now() - drained;
    const jobs = (
      await t.db.query<{ kind: string; state: string; n: number }>(
        "SELECT kind, state, count(*)::int AS n FROM jobs GROUP BY 1, 2 ORDER BY 1, 2",
      )
    ).rows;

    // Every acknowledged write, exactly once: by id, and one record per dedupe key.
    const byWorkspace = new Map<string, { ids: string[]; keys: string[] }>();
    for (const [id, { ws, key }] of acked) {
      const entry = byWorkspace.get(ws) ?? { ids: [], keys: [] };
      entry.ids.push(id);
      entry.keys.push(key);
      byWorkspace.set(ws, entry);
    }
    let present = 0;
    let notReady = 0;
    const duplicateKeys: string[] = [];
    for (const [ws, { ids, keys }] of byWorkspace) {
      const { rows } = await t.db.query<{ id: string; ready: boolean }>(
        "SELECT id, ready FROM records WHERE workspace_id = $1 AND id = ANY($2::uuid[])",
        [ws, ids],
      );
      present += rows.length;
      notReady += rows.filter((r) => !r.ready).length;
      const { rows: counts } = await t.db.query<{ dedupe_key: string; n: number }>(
        "SELECT dedupe_key, count(*)::int AS n FROM records WHERE workspace_id = $1 AND dedupe_key = ANY($2::text[]) GROUP BY 1",
        [ws, keys],
      );
      for (const c of counts) if (c.n !== 1) duplicateKeys.push(`${ws}/${c.dedupe_key}×${c.n}`);
      if (counts.length !== new Set(keys).size)
        duplicateKeys.push(`${ws}: ${keys.length - counts.length} keys missing`);
    }
    // And through the API, a sample of ids by GET /records/{id}.
    const sample = [...acked.entries()].filter((_, i) => i % 25 === 0);
    let fetched = 0;
    for (const [id, { ws }] of sample) {
      const key = spaces.find((s) => s.id === ws)?.key as string;
      const res = await fetch(`${base}/records/${id}`, { headers: { authorization: `Bearer ${key}` } });
      if (res.status === 200) fetched++;
    }

    const byStatus: Record<string, number> = {};
    for (const s of samples) {
      const label = `${s.kind} ${s.status}${s.status === 503 && s.retryAfter ? "+Retry-After" : ""}`;
      byStatus[label] = (byStatus[label] ?? 0) + 1;
    }
    const latency = (phaseName: Phase, kind?: Sample["kind"]) => {
      const ms = samples.filter((s) => s.phase === phaseName && (!kind || s.kind === kind)).map((s) => s.ms);
      return `n ${ms.length} p50 ${percentile(ms, 50).toFixed(1)} ms p99 ${percentile(ms, 99).toFixed(1)} ms`;
    };
    console.log(
      [
        "citus rebalance under load:",
        `  writes acknowledged: ${acked.size} records (${samples.filter((s) => s.kind === "write" && s.status === 200).length} batches of ${ROWS_PER_BATCH}); present ${present}, not ready ${notReady}, GET /records/{id} ${fetched}/${sample.length}`,
        `  requests by status: ${JSON.stringify(byStatus)}`,
        `  503 with Retry-After: ${samples.filter((s) => s.status === 503 && s.retryAfter).length}; other 5xx: ${serverErrors.length}; network errors: ${networkErrors.length}`,
        `  records shards by node before: ${JSON.stringify(before)} after: ${JSON.stringify(after)}`,
        `  shard group moves: ${moves}, job ${jobState} in ${jobSeconds.toFixed(1)} s (background job), ${(rebalanceMs / 1000).toFixed(1)} s from citus_add_node to finished; queue drained ${(drainMs / 1000).toFixed(1)} s after the load stopped`,
        `  latency before: all ${latency("before")}; writes ${latency("before", "write")}; reads ${latency("before", "read")}`,
        `  latency during: all ${latency("during")}; writes ${latency("during", "write")}; reads ${latency("during", "read")}`,
        `  latency after:  all ${latency("after")}`,
        `  jobs: ${JSON.stringify(jobs)}`,
        `  database settings on the new node: ${settingsOnNewNode}`,
      ].join("\n"),
    );
    if (serverErrors.length) console.log(`5xx:\n${serverErrors.slice(0, 20).join("\n")}`);
    if (networkErrors.length) console.log(`network errors:\n${networkErrors.slice(0, 20).join("\n")}`);
    if (readFailures.length) console.log(`read failures:\n${readFailures.slice(0, 20).join("\n")}`);

    expect(jobState).toBe("finished");
    expect(after.find((p) => p.nodeport === node.port)?.shards ?? 0).toBeGreaterThan(0);
    expect(moves).toBeGreaterThan(0);
    expect(samples.filter((s) => s.phase === "during").length).toBeGreaterThan(0);
    expect(acked.size).toBeGreaterThan(0);
    expect(present).toBe(acked.size);
    expect(notReady).toBe(0);
    expect(duplicateKeys).toEqual([]);
    expect(fetched).toBe(sample.length);
    expect(jobs.filter((j) => j.state === "dead")).toEqual([]);
    expect(serverErrors).toEqual([]);
    expect(networkErrors).toEqual([]);
    expect(readFailures).toEqual([]);
  });
});
