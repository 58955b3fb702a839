// Coalesced enqueues racing a worker's claim. On the server each request runs on a pooled
// connection of its own, so a worker can claim the queued job between any two statements of an
// enqueue; PGlite serializes everything on one connection and never interleaves them.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Queryable } from "../../src/platform/db/index.js";
import { claimJobs, enqueue } from "../../src/worker/queue.js";
import { onServer } from "../support/db.js";
import {
  derivationFiles,
  derivationHarness,
  derivationYaml,
  type Harness,
  scriptFile,
} from "../support/derivations.js";
import { waitFor } from "../support/wait.js";
import { startTestWorker } from "../support/worker.js";

const KEY = "race:one";

describe.runIf(onServer)("enqueue with coalescing against a claiming worker", () => {
  let h: Harness;

  beforeAll(async () => {
    h = await derivationHarness(
      "enqueue-race",
      derivationFiles(
        [derivationYaml("onwrite", { trigger: "    trigger: { on: write, collections: [notes] }\n" })],
        {
          triggers: ["onwrite.default"],
        },
      ),
    );
  });
  afterAll(() => h.close());

  const claim = () => claimJobs(h.t.db, { owner: "racer", kinds: ["race"], leaseSeconds: 60, limit: 10 });
  const request = { kind: "race", payload: {}, coalesceKey: KEY };
  const queued = async () =>
    (
      await h.t.db.query<{ id: string }>(
        "SELECT id FROM jobs WHERE workspace_id = $1 AND coalesce_key = $2 AND state = 'queued'",
        [h.ws.id, KEY],
      )
    ).rows;

  it("a worker that claims the queued job after any statement of an enqueue never makes it fail", async () => {
    await h.t.db.transaction((tx) => enqueue(tx, { workspaceId: h.ws.id, ...request }));
    const claimedBetween: string[] = [];
    const result = await h.t.db.transaction(async (tx) => {
      // Every statement the enqueue sends is followed by a committed claim on another connection.
      const racing: Queryable = {
        query: async (text, params) => {
          const answer = await tx.query(text, params);
          claimedBetween.push(...(await claim()).map((job) => job.id));
          return answer;
        },
      } as Queryable;
      return enqueue(racing, { workspaceId: h.ws.id, ...request });
    });
    expect(result.coalesced).toBe(true);
    expect(await queued()).toEqual([{ id: result.jobId }]);
    // The joined job was locked by the enqueue, so no claim took it from under the request.
    expect(claimedBetween).toEqual([]);
    await h.t.db.query("UPDATE jobs SET state = 'succeeded' WHERE workspace_id = $1 AND coalesce_key = $2", [
      h.ws.id,
      KEY,
    ]);
  });

  it("an enqueue waiting on a claim in progress queues a new job once the claim commits", async () => {
    const first = await h.t.db.transaction((tx) => enqueue(tx, { workspaceId: h.ws.id, ...request }));
    const worker = new pg.Client({ connectionString: h.t.testDb.url });
    await worker.connect();
    try {
      await worker.query("BEGIN");
      await worker.query("UPDATE jobs SET state = 'running' WHERE workspace_id = $1 AND id = $2", [
        h.ws.id,
        first.jobId,
      ]);
      const pending = h.t.db.transaction((tx) => enqueue(tx, { workspaceId: h.ws.id, ...request }));
      await waitFor(async () => {
        const { rows } = await worker.query(
          "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
        );
        return rows.length > 0;
      });
      await worker.query("COMMIT");
      const second = await pending;
      expect(second.coalesced).toBe(false);
      expect(second.jobId).not.toBe(first.jobId);
      expect(await queued()).toEqual([{ id: second.jobId }]);
    } finally {
      await worker.end();
    }
  });

  it("a burst of run requests and trigger-firing writes for one pair, with a worker claiming, gives no 5xx", async () => {
    const worker = await startTestWorker(
      h.t.db,
      { FAKE_MODEL_SCRIPT: scriptFile({ onwrite: { records: [] } }) },
      { derive: true },
    );
    try {
      for (let round = 0; round < 4; round++) {
        const requests = Array.from({ length: 50 }, (_, i) =>
          i % 5 === 4
            ? h.post("/records", {
                records: [{ collection: "notes", entity: "acme", type: "note", text: `burst ${round} ${i}` }],
              })
            : h.post("/processors/onwrite/run", { entity: "acme" }),
        );
        const replies = await Promise.all(requests);
        const statuses = replies.map((res) => res.statusCode);
        expect(statuses.filter((status) => status >= 500)).toEqual([]);
        expect(new Set(statuses)).toEqual(new Set([200, 202]));
      }
    } finally {
      await worker.stop();
    }
    // At most one queued job per pair, whatever the interleaving.
    const { rows } = await h.t.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM jobs WHERE workspace_id = $1 AND state = 'queued' GROUP BY coalesce_key",
      [h.ws.id],
    );
    expect(rows.every((row) => row.n === 1)).toBe(true);
  });
});
