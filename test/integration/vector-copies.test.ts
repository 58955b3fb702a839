// Records that hold the same vector (docs/scaling.md, "Vector search among tenants"): one of
// them, the lead, is the only one in the space's HNSW index, and a walk reaches the others, its
// copies, through it. A walk that meets the lead finds every copy that passes the search's
// filters, the lead's own record passing or not, without the exact scan that finishes a short
// walk; erasing the lead's record hands the lead to the earliest copy left.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordingDb } from "../../bench/recorder.js";
import { createTestApp, type TestApp } from "../support/app.js";
import { createTestDb } from "../support/db.js";
import { enrichAll } from "../support/worker.js";

const WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima".split(" ");
/** The fallback of a short walk, and every exact scan: src/search/candidates.ts. */
const EXACT_SCAN = /ORDER BY similarity DESC NULLS LAST/;

describe("records holding one vector", () => {
  let t: TestApp;
  let ws: { id: string; headers: { authorization: string } };
  const recording = { statements: [] as string[] };
  let recorder: ReturnType<typeof recordingDb>["recorder"];

  beforeAll(async () => {
    const testDb = await createTestDb();
    const recorded = recordingDb(testDb.db);
    recorder = recorded.recorder;
    // Every workspace walks the index (VECTOR_EXACT_ROWS 0), hashed vectors (as vector-index.test.ts).
    t = await createTestApp({ env: { VECTOR_EXACT_ROWS: "0" }, testDb: { ...testDb, db: recorded.db } });
    ws = await t.workspace("copies");
    await t.publishExample(ws.headers, "fake");
    // 66 notes, each a distinct pair of words: "delta kilo" is written first, before its copies.
    await t.writeRecords(
      ws.headers,
      WORDS.flatMap((a, i) =>
        WORDS.slice(i + 1).map((b) => ({
          collection: "customer_events",
          entity: `c-${a}`,
          type: "note",
          text: `${a} ${b}`,
        })),
      ),
    );
    await enrichAll(t.db, ws.id);
    // Copies of that note's vector in two transactions, and a vector new to the workspace whose
    // 30 records arrive in one batch.
    const calls = (text: string, from: number, n: number) =>
      Array.from({ length: n }, (_, i) => ({
        collection: "customer_events",
        entity: `caller-${text.replaceAll(" ", "-")}-${from + i}`,
        type: "call",
        text,
      }));
    await t.writeRecords(ws.headers, calls("delta kilo", 0, 20));
    await enrichAll(t.db, ws.id);
    await t.writeRecords(ws.headers, [...calls("delta kilo", 20, 20), ...calls("kilo lima india", 0, 30)]);
    await enrichAll(t.db, ws.id);
    await t.db.exec("ANALYZE");
  });
  afterAll(() => t?.close());

  /** The embeddings of the records whose text is this, in the order they were stored. */
  async function group(text: string) {
    const { rows } = await t.db.query<{ id: string; type: string; lead: boolean; vhash: string | null }>(
      `SELECT r.id, r.type, e.lead, e.vhash FROM embeddings e JOIN records r ON r.workspace_id = e.workspace_id AND r.id = e.record_id
       WHERE e.workspace_id = $1 AND r.text = $2 ORDER BY e.seq`,
      [ws.id, text],
    );
    return rows;
  }

  async function search(body: object) {
    recorder.start();
    const res = await t.app.inject({ method: "POST", url: "/search", headers: ws.headers, payload: body });
    recording.statements = recorder.stop().map((s) => s.sql);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().hits as { id: string; text: string; type: string; score: number }[];
  }

  /** The last search walked the index and stood (the exact layout has no index: it scans). */
  function expectWalked(): void {
    if (!t.db.hasVector) return;
    expect(recording.statements.some((s) => s.includes("CROSS JOIN LATERAL"))).toBe(true);
    expect(recording.statements.filter((s) => EXACT_SCAN.test(s))).toEqual([]);
  }

  /** POST /erase of these records. */
  async function erase(records: string[]): Promise<void> {
    const res = await t.app.inject({
      method: "POST",
      url: "/erase",
      headers: ws.headers,
      payload: { records },
    });
    expect(res.statusCode, res.body).toBe(200);
  }

  /** Calls like "delta kilo": the note that leads them fails the filter, every copy passes. */
  const calls = (q: string, k: number) =>
    search({
      mode: "vector",
      q,
      k,
      scope: { types: ["call"] },
      params: { candidates: k },
      include: ["text", "type"],
    });

  it("stores one lead per vector of a workspace's space, its earliest row; the rest are its copies", async (ctx) => {
    // The exact layout (no pgvector) has no index: every row is its own.
    if (!t.db.hasVector) ctx.skip();
    for (const [text, rows, leadType] of [
      ["delta kilo", 41, "note"],
      ["kilo lima india", 30, "call"],
    ] as const) {
      const stored = await group(text);
      expect(stored).toHaveLength(rows);
      expect(new Set(stored.map((row) => row.vhash)).size).toBe(1);
      expect(stored[0]?.vhash).not.toBeNull();
      expect(stored.map((row) => row.lead)).toEqual(stored.map((_, i) => i === 0));
      expect(stored[0]?.type).toBe(leadType);
    }
    // A vector held once is its own lead.
    expect((await group("alpha bravo")).map((row) => row.lead)).toEqual([true]);
  });

  it("a walk that meets a lead finds its copies that pass the filters, and stands without an exact scan", async () => {
    const hits = await calls("delta kilo", 40);
    expect(hits).toHaveLength(40);
    expect(hits.every((hit) => hit.text === "delta kilo" && hit.type === "call")).toBe(true);
    expectWalked();
    // Unfiltered, the lead's own record is among the 41 as similar as can be.
    const all = await search({
      mode: "vector",
      q: "delta kilo",
      k: 41,
      params: { candidates: 41 },
      include: ["text", "type"],
    });
    expect(all.filter((hit) => hit.text === "delta kilo")).toHaveLength(41);
    expect(all.some((hit) => hit.type === "note")).toBe(true);
  });

  it("erasing a lead's record hands the lead to the earliest copy left, and the walk still finds them all", async (ctx) => {
    const note = (await group("delta kilo")).find((row) => row.type === "note");
    await erase([note?.id as string]);
    const hits = await calls("delta kilo", 40);
    expect(hits).toHaveLength(40);
    expectWalked();
    if (!t.db.hasVector) ctx.skip();
    const left = await group("delta kilo");
    expect(left).toHaveLength(40);
    expect(left.map((row) => row.lead)).toEqual(left.map((_, i) => i === 0));
  });

  it("erasing the lead with some of its copies promotes one that is left; erasing every one leaves none", async (ctx) => {
    const stored = await group("kilo lima india");
    await erase(stored.slice(0, 10).map((row) => row.id));
    const hits = await calls("kilo lima india", 20);
    expect(hits.map((hit) => hit.id).sort()).toEqual(
      stored
        .slice(10)
        .map((row) => row.id)
        .sort(),
    );
    if (t.db.hasVector) {
      const left = await group("kilo lima india");
      expect(left.map((row) => row.id)).toEqual(stored.slice(10).map((row) => row.id));
      expect(left.map((row) => row.lead)).toEqual(left.map((_, i) => i === 0));
    }
    await erase(stored.slice(10).map((row) => row.id));
    expect(await group("kilo lima india")).toEqual([]);
    const after = await calls("kilo lima india", 20);
    expect(after.some((hit) => hit.text === "kilo lima india")).toBe(false);
    if (!t.db.hasVector) ctx.skip();
  });
});
