// The workspace's term statistics (src/records/text-stats.ts) stay exactly what counting the
// searchable records from scratch gives (ready, not a tombstone, with a vector, current), through
// writes, supersessions, retractions, enrichment racing writes, erasure, and reindex; a database
// upgraded from before them builds each workspace's at its first search; nothing of one
// workspace is in another's.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.js";
import { enrichAll, startTestWorker } from "../support/worker.js";

/** The statistics counted from scratch, in the stored rows' shape. */
const FROM_SCRATCH = `
  WITH searchable AS (
    SELECT r.search_text, r.search_length, r.search_config FROM records r
    WHERE r.workspace_id = $1 AND r.ready AND NOT r.tombstone AND r.search_text IS NOT NULL
      AND (r.key IS NULL OR EXISTS (SELECT 1 FROM heads h WHERE h.workspace_id = $1 AND h.entity = r.entity
        AND h.collection = r.collection AND h.key = r.key AND h.status = r.status AND h.record_id = r.id)))
  SELECT s.search_config AS config, u.lexeme, count(*)::int AS docs,
    sum(cardinality(u.positions))::int AS occurrences
  FROM searchable s, unnest(s.search_text) AS u GROUP BY 1, 2
  UNION ALL
  SELECT search_config, '', count(*)::int, sum(search_length)::int FROM searchable GROUP BY 1`;

const STORED = `SELECT config, lexeme, docs::int AS docs, occurrences::int AS occurrences
  FROM text_stats WHERE workspace_id = $1`;

type StatRow = { config: string; lexeme: string; docs: number; occurrences: number };
const sorted = (rows: StatRow[]) =>
  [...rows].sort((a, b) => a.config.localeCompare(b.config) || a.lexeme.localeCompare(b.lexeme));

describe("term statistics", () => {
  let t: TestApp;
  let ws: { id: string; headers: { authorization: string } };
  let other: { id: string; headers: { authorization: string } };

  const stored = async (workspaceId: string) =>
    sorted((await t.db.query<StatRow>(STORED, [workspaceId])).rows);
  const expected = async (workspaceId: string) =>
    sorted((await t.db.query<StatRow>(FROM_SCRATCH, [workspaceId])).rows);
  const fact = (entity: string, key: string, text: string, tombstone = false) => ({
    collection: "customer_facts",
    entity,
    type: "note",
    key,
    text,
    ...(tombstone ? { tombstone: true, text: "" } : {}),
  });
  const event = (entity: string, text: string) => ({
    collection: "customer_events",
    entity,
    type: "ticket",
    text,
    content: { channel: "chat" },
  });

  beforeAll(async () => {
    t = await createTestApp();
    ws = await t.workspace("stats");
    other = await t.workspace("stats-other");
    await t.publishExample(ws.headers);
    await t.publishExample(other.headers);
  }, 60_000);

  afterAll(async () => {
    await t?.close();
  });

  it("counts records as they turn ready, and only current ones", async () => {
    await t.writeRecords(ws.headers, [
      event("ann", "refund refund for the broken kettle"),
      event("bob", "kettle arrived broken again"),
      fact("ann", "plan", "gold plan with kettle insurance"),
    ]);
    // Not ready yet (the example's collections need enrichment): nothing counted.
    expect(await stored(ws.id)).toEqual(await expected(ws.id));
    expect((await stored(ws.id)).find((row) => row.lexeme === "kettl")).toBeUndefined();
    await enrichAll(t.db, ws.id);
    const rows = await stored(ws.id);
    expect(rows).toEqual(await expected(ws.id));
    expect(rows.find((row) => row.lexeme === "kettl")).toMatchObject({ docs: 3, occurrences: 3 });
    expect(rows.find((row) => row.lexeme === "")).toMatchObject({ docs: 3 });
  });

  it("a newer version of a slot replaces the older one's share; a retraction removes it", async () => {
    await t.writeRecords(ws.headers, [fact("ann", "plan", "silver plan")]);
    // The new version is not ready, but the old one is no longer current.
    expect(await stored(ws.id)).toEqual(await expected(ws.id));
    expect((await stored(ws.id)).find((row) => row.lexeme === "gold")).toBeUndefined();
    await enrichAll(t.db, ws.id);
    expect((await stored(ws.id)).find((row) => row.lexeme === "silver")).toMatchObject({ docs: 1 });
    await t.writeRecords(ws.headers, [fact("ann", "plan", "", true)]);
    await enrichAll(t.db, ws.id);
    const rows = await stored(ws.id);
    expect(rows).toEqual(await expected(ws.id));
    expect(rows.find((row) => row.lexeme === "silver")).toBeUndefined();
    expect(rows.find((row) => row.lexeme === "")).toMatchObject({ docs: 2 });
  });

  it("stays exact while writers supersede records the worker is enriching", async () => {
    const worker = await startTestWorker(t.db);
    try {
      for (let round = 0; round < 8; round++) {
        await Promise.all(
          Array.from({ length: 4 }, (_, w) =>
            t.writeRecords(ws.headers, [
              fact(`cust-${w}`, "note", `note ${round} from writer ${w} about billing`),
              fact(`cust-${(w + 1) % 4}`, "note", `other note ${round} refund`),
              event(`cust-${w}`, `event ${round} kettle ${w}`),
            ]),
          ),
        );
      }
    } finally {
      await worker.stop();
    }
    await enrichAll(t.db, ws.id);
    expect(await stored(ws.id)).toEqual(await expected(ws.id));
  });

  it("an erasure removes the erased records' share, and counts a head it restores", async () => {
    await t.writeRecords(ws.headers, [fact("dora", "nickname", "dodo zanzibar")]);
    await enrichAll(t.db, ws.id);
    const [newer] = await t.writeRecords(ws.headers, [fact("dora", "nickname", "quokka")]);
    await enrichAll(t.db, ws.id);
    expect((await stored(ws.id)).find((row) => row.lexeme === "zanzibar")).toBeUndefined();
    // Erasing the newer version restores the older head, which counts again.
    const erased = await t.app.inject({
      method: "POST",
      url: "/erase",
      headers: ws.headers,
      payload: { records: [newer] },
    });
    expect(erased.statusCode, erased.body).toBe(200);
    let rows = await stored(ws.id);
    expect(rows).toEqual(await expected(ws.id));
    expect(rows.find((row) => row.lexeme === "zanzibar")).toMatchObject({ docs: 1 });
    expect(rows.find((row) => row.lexeme === "quokka")).toBeUndefined();
    const whole = await t.app.inject({
      method: "POST",
      url: "/erase",
      headers: ws.headers,
      payload: { entity: "dora" },
    });
    expect(whole.statusCode, whole.body).toBe(200);
    rows = await stored(ws.id);
    expect(rows).toEqual(await expected(ws.id));
    // An erased word leaves no row behind, not even a zero.
    expect(rows.find((row) => row.lexeme === "zanzibar")).toBeUndefined();
  });

  it("a reindex recounts the vectors it rebuilds", async () => {
    const before = await stored(ws.id);
    const res = await t.app.inject({
      method: "POST",
      url: "/reindex",
      headers: ws.headers,
      payload: { reset: true, confirm: true },
    });
    expect(res.statusCode, res.body).toBeLessThan(300);
    await enrichAll(t.db, ws.id);
    const worker = await startTestWorker(t.db);
    try {
      const { waitFor } = await import("../support/wait.js");
      await waitFor(async () => {
        const { rows } = await t.db.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM jobs WHERE workspace_id = $1 AND kind = 'reindex' AND state IN ('queued', 'running')",
          [ws.id],
        );
        return rows[0]?.n === 0;
      });
    } finally {
      await worker.stop();
    }
    expect(await stored(ws.id)).toEqual(await expected(ws.id));
    expect(await stored(ws.id)).toEqual(before);
  });

  it("keeps each workspace's own: another's records never show in them", async () => {
    await t.writeRecords(other.headers, [event("zed", "kettle kettle kettle xylophone")]);
    await enrichAll(t.db, other.id);
    expect((await stored(ws.id)).find((row) => row.lexeme === "xylophon")).toBeUndefined();
    expect((await stored(other.id)).find((row) => row.lexeme === "kettl")).toMatchObject({ docs: 1 });
    expect(await stored(other.id)).toEqual(await expected(other.id));
  });

  it("a workspace whose records predate the statistics has them built at its first search", async () => {
    const want = await stored(ws.id);
    // As migration 0021 leaves a workspace that held records: no statistics, no configuration.
    await t.db.query("DELETE FROM text_stats WHERE workspace_id = $1", [ws.id]);
    await t.db.query("UPDATE records SET search_config = NULL WHERE workspace_id = $1", [ws.id]);
    await t.db.query("UPDATE workspace_counters SET text_stats_built = false WHERE workspace_id = $1", [
      ws.id,
    ]);
    // Until built, a write's counting waits for the build instead of counting on nothing.
    await t.writeRecords(ws.headers, [fact("erin", "plan", "bronze plan")]);
    await enrichAll(t.db, ws.id);
    expect(await stored(ws.id)).toEqual([]);
    const res = await t.app.inject({
      method: "POST",
      url: "/search",
      headers: ws.headers,
      payload: { mode: "text", q: "kettle", k: 5 },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().hits.length).toBeGreaterThan(0);
    const rows = await stored(ws.id);
    expect(rows).toEqual(await expected(ws.id));
    expect(rows.find((row) => row.lexeme === "bronz")).toMatchObject({ docs: 1 });
    // The rest is what was counted as the records were written.
    const besides = (row: StatRow) => !["bronz", "plan", ""].includes(row.lexeme);
    expect(rows.filter(besides)).toEqual(want.filter(besides));
  });
});
