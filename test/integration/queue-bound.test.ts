// A workspace holds at most QUEUE_MAX_PER_WORKSPACE jobs queued ahead of the turn being served
// (docs/operations.md, "The job queue"): past it, every request that queues work is 429
// queue_full with Retry-After and changes nothing, while another workspace goes on as before.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { QUEUE_MAX_PER_WORKSPACE } from "../../src/worker/index.js";
import { createTestApp, type TestApp } from "../support/app.js";
import { waitFor } from "../support/wait.js";

let t: TestApp;
let a: { id: string; headers: { authorization: string } };
let b: { id: string; headers: { authorization: string } };
const EVENT = { collection: "customer_events", entity: "acme", type: "ticket", text: "Card declined" };

const post = (headers: { authorization: string }, url: string, payload: object) =>
  t.app.inject({ method: "POST", url, headers, payload });

async function counts(workspaceId: string) {
  const { rows } = await t.db.query<{ records: number; jobs: number }>(
    `SELECT (SELECT count(*)::int FROM records WHERE workspace_id = $1) AS records,
            (SELECT count(*)::int FROM jobs WHERE workspace_id = $1) AS jobs`,
    [workspaceId],
  );
  return rows[0];
}

beforeAll(async () => {
  t = await createTestApp();
  a = await t.workspace("backlogged");
  b = await t.workspace("neighbour");
  await t.publishExample(a.headers);
  await t.publishExample(b.headers);
  // A's backlog, as a flood of writes would leave it: one turn per job, nothing running.
  await t.db.query(
    `INSERT INTO jobs (workspace_id, kind, payload, turn)
     SELECT $1, 'reindex', '{"from_seq": 0, "to_seq": 0}', n FROM generate_series(1, $2::int) AS n`,
    [a.id, QUEUE_MAX_PER_WORKSPACE],
  );
}, 60_000);
afterAll(() => t.close());

describe("a workspace's queued jobs are bounded", () => {
  it("refuses A's writes, reindex, backfill and runs with 429 queue_full, changing nothing", async () => {
    const before = await counts(a.id);
    for (const [url, payload] of [
      ["/records", { records: [EVENT] }],
      ["/reindex", { since_seq: 0 }],
      ["/backfill", { collection: "customer_events", version: 1, processor: "urgency" }],
      ["/processors/customer_profile/run", { entity: "acme" }],
    ] as const) {
      const res = await post(a.headers, url, payload);
      expect(res.statusCode, `${url}: ${res.body}`).toBe(429);
      expect(res.json()).toMatchObject({ code: "queue_full", status: 429 });
      expect(res.json().detail).toMatch(new RegExp(`${QUEUE_MAX_PER_WORKSPACE}`));
      expect(res.headers["retry-after"]).toBe("30");
    }
    expect(await counts(a.id)).toEqual(before);
  });

  it("leaves another workspace's writes as they were", async () => {
    const res = await post(b.headers, "/records", { records: [EVENT] });
    expect(res.statusCode, res.body).toBe(200);
  });

  it("takes A's writes again once its backlog is under the bound", async () => {
    await t.db.query("UPDATE jobs SET state = 'cancelled' WHERE workspace_id = $1 AND turn > $2", [
      a.id,
      QUEUE_MAX_PER_WORKSPACE - 10,
    ]);
    // A backlog once read answers for up to a second: the write passes at the next reading.
    const res = await waitFor(async () => {
      const attempt = await post(a.headers, "/records", { records: [EVENT] });
      return attempt.statusCode === 200 ? attempt : attempt.statusCode === 429 ? undefined : attempt;
    });
    expect(res.statusCode, res.body).toBe(200);
  });
});
