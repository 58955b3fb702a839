// Text proposals read from the cells of the text index (src/search/text-walk.ts, migration
// 0021): whatever reads them, the top k is brute-force BM25's (every match scored), with every
// visibility rule and filter applied and nothing of another workspace; the walk is what serves a
// common word, and it reads every record of a rare term outright.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requireCatalog, searchParts, validateSearchSpec } from "../../src/catalog/index.js";
import type { Db } from "../../src/platform/db/index.js";
import { textCandidates } from "../../src/search/candidates.js";
import { bucketOf, cellsByBound, cellToken } from "../../src/search/text-cells.js";
import { createTestApp, type TestApp } from "../support/app.js";
import { recordingDb } from "../support/recording-db.js";
import { enrichAll } from "../support/worker.js";

const CHANNELS = ["email", "chat", "phone", "web"] as const;
const FILLER = ["customer", "wrote", "about", "account", "yesterday", "again", "billing", "team"];

/** A seeded record text: 0..9 refunds, 0..4 invoices, and 0..40 filler words (lengths vary). */
function textOf(i: number): string {
  const words = [`ticket${i}`];
  for (let j = 0; j < (i * 7) % 10; j++) words.push("refund");
  for (let j = 0; j < (i * 3) % 5; j++) words.push("invoice");
  for (let j = 0; j < (i * 13) % 41; j++) words.push(FILLER[(i + j) % FILLER.length] as string);
  return words.join(" ");
}

describe("search: text proposals from the cells of the text index", () => {
  let t: TestApp;
  let headers: { authorization: string };
  let workspaceId: string;
  let otherId: string;
  let staleFact: string | undefined;

  beforeAll(async () => {
    t = await createTestApp();
    const ws = await t.workspace("cells");
    const other = await t.workspace("cells-other");
    headers = ws.headers;
    workspaceId = ws.id;
    otherId = other.id;
    await t.publishExample(headers);
    await t.publishExample(other.headers);
    // A keyed fact repeating the word, then superseded: only the current value may be proposed.
    [staleFact] = await t.writeRecords(headers, [
      {
        collection: "customer_facts",
        entity: "customer-0",
        type: "note",
        key: "note",
        text: "refund ".repeat(40),
      },
    ]);
    await t.writeRecords(headers, [
      { collection: "customer_facts", entity: "customer-0", type: "note", key: "note", text: "settled" },
    ]);
    await t.writeRecords(
      headers,
      Array.from({ length: 200 }, (_, i) => ({
        collection: "customer_events",
        entity: `customer-${i % 5}`,
        type: "ticket",
        text: textOf(i),
        content: { channel: CHANNELS[i % 4] },
      })),
    );
    // The other workspace repeats the words in short records: none of it may be proposed here.
    await t.writeRecords(
      other.headers,
      Array.from({ length: 10 }, (_, i) => ({
        collection: "customer_events",
        entity: "elsewhere",
        type: "ticket",
        text: `refund refund refund invoice ${i}`,
      })),
    );
    await enrichAll(t.db, workspaceId);
    await enrichAll(t.db, other.id);
  }, 120_000);

  afterAll(async () => {
    await t?.close();
  });

  const propose = async (body: object, exhaustiveText: boolean, db: Db = t.db) => {
    const catalog = await requireCatalog(db, workspaceId);
    const spec = validateSearchSpec(body, catalog.index, { maxQueryChars: 10_000 });
    const [part] = searchParts(spec);
    if (!part) throw new Error("no part");
    const found = await textCandidates(
      { db, workspaceId, catalog, part, q: spec.q, query: undefined, exhaustiveText, vectorExactRows: 0 },
      part.params.candidates,
    );
    return found;
  };
  const recording = (seen: string[]) => recordingDb(t.db, seen);
  const ids = (rows: { id: string }[]) => rows.map((row) => row.id);

  it("indexes a token per (record, lexeme): workspace, occurrence bucket, length bucket, lexeme", async () => {
    const { rows } = await t.db.query<{ tokens: string[]; length: number }>(
      `SELECT engram_text_cells(workspace_id, search_text) AS tokens, search_length AS length
       FROM records WHERE workspace_id = $1 AND text = $2`,
      [workspaceId, textOf(9)],
    );
    const row = rows[0];
    if (!row) throw new Error("no record");
    // ticket9, 3 refunds, 2 invoices, 35 filler words; stop words ("about", "again") are no lexemes.
    expect(row.tokens).toContain(`${workspaceId}:3:${bucketOf(row.length)}:refund`);
    expect(row.tokens).toContain(`${workspaceId}:2:${bucketOf(row.length)}:invoic`);
    expect(row.tokens).toContain(`${workspaceId}:1:${bucketOf(row.length)}:ticket9`);
    expect(row.tokens).toHaveLength(new Set(row.tokens).size);
  });

  it("buckets counts exactly below 8, then four per doubling, as the SQL function does", async () => {
    const counts = [1, 7, 8, 9, 15, 16, 31, 32, 255, 256, 300];
    const { rows } = await t.db.query<{ tokens: string[] }>(
      `SELECT engram_text_cells('00000000-0000-0000-0000-000000000000',
         (SELECT to_tsvector('simple', string_agg(repeat('w' || n || ' ', n), ' ')) FROM unnest($1::int[]) AS n)) AS tokens`,
      [counts],
    );
    const tokens = rows[0]?.tokens ?? [];
    for (const n of counts) {
      const tf = Math.min(n, 255);
      expect(
        tokens.some(
          (token) =>
            token.startsWith(`00000000-0000-0000-0000-000000000000:${bucketOf(tf)}:`) &&
            token.endsWith(`:w${n}`),
        ),
      ).toBe(true);
    }
    expect([1, 7, 8, 9, 10, 15, 16, 19, 20, 31, 255, 16383, 20000].map(bucketOf)).toEqual([
      1, 7, 8, 8, 10, 14, 16, 16, 20, 28, 224, 14336, 16384,
    ]);
  });

  it("orders cells by the most a lexeme of them can weigh: more occurrences, shorter records first", () => {
    const cells = cellsByBound({ k1: 1.2, b: 0.75, avgdl: 20 });
    const weights = cells.map((cell) => cell.weight);
    expect(weights).toEqual([...weights].sort((a, b) => b - a));
    // A lexeme never occurs more often than its record is long.
    expect(cells.every((cell) => cell.occurrences <= Math.max(cell.length, 16384))).toBe(true);
    const at = (occurrences: number, length: number) =>
      cells.findIndex((c) => c.occurrences === occurrences && c.length === length);
    expect(at(2, 2)).toBeLessThan(at(1, 2));
    expect(at(1, 2)).toBeLessThan(at(1, 40));
    expect(cellToken("ws", cells[0] as (typeof cells)[number], "refund")).toMatch(/^ws:\d+:\d+:refund$/);
  });

  it.each([
    ["refund", {}],
    ["invoice", {}],
    ["refund invoice", {}],
    ["refund -invoice", {}],
    ["refund customer wrote", {}],
    ["invoice billing", { scope: { collections: ["customer_events"] }, where: { channel: { eq: "phone" } } }],
    ["refund", { scope: { collections: ["customer_events", "customer_facts"] } }],
    ["refund ticket17", {}],
    ['refund "ticket17 refund"', {}],
  ])("%s %j: the cells propose brute force's top k, in its order", async (q, extra) => {
    for (const [k, candidates] of [
      [5, 5],
      [3, 8],
      [10, 10],
    ] as const) {
      const body = { mode: "text", q, k, params: { candidates }, ...extra };
      const seen: string[] = [];
      const walked = await propose(body, false, recording(seen));
      expect(seen.some((sql) => sql.includes("engram_text_cells"))).toBe(true);
      const exact = await propose(body, true);
      expect(ids(walked).slice(0, k)).toEqual(ids(exact).slice(0, k));
      expect(walked.slice(0, k).map((c) => c.text_match)).toEqual(exact.slice(0, k).map((c) => c.text_match));
      expect(walked).toHaveLength(
        Math.min(candidates, exact.length === candidates ? candidates : walked.length),
      );
    }
  });

  it("reads the records whose words could together outrank the k-th when the cells read cannot bound the rest", async () => {
    // Three common words, a small pool: the walk stops with the k-th below what three unread
    // cells could add up to, so the records holding a set of the words in cells that could
    // together reach it are read, each word through its own cells.
    const body = { mode: "text", q: "refund invoice billing", k: 10, params: { candidates: 10 } };
    const seen: string[] = [];
    const walked = await propose(body, false, recording(seen));
    const conjunction =
      /engram_text_cells\(t\.workspace_id, t\.search_text\) && \(SELECT \$\d+::text\[\]\) AND engram_text_cells/;
    expect(seen.some((sql) => conjunction.test(sql) && sql.includes("r.id <> ALL"))).toBe(true);
    expect(ids(walked)).toEqual(ids(await propose(body, true)).slice(0, 10));
  });

  it("reads again a round a one-word walk cut at the matches it needed, when the cut cannot bound the rest", async () => {
    // One common word in one cell (one occurrence, lengths 16 to 19): the walk's round stops at
    // the pool's 3 matches, the first in the table (the longer records, written first, weigh
    // less); the cell's bound is a 16-word record's weight, so the round is read whole after.
    const filler =
      "velvet marble quartz walnut tundra glacier orchid saffron cobalt ember canyon prairie thunder willow beacon anchor compass lagoon";
    const lanterns = (words: number) =>
      Array.from({ length: 40 }, (_, i) => ({
        collection: "customer_events",
        entity: `customer-${i % 5}`,
        type: "ticket",
        text: `lantern ${filler.split(" ").slice(0, words).join(" ")}`,
        content: { channel: "web" },
      }));
    await t.writeRecords(headers, lanterns(18));
    await t.writeRecords(headers, lanterns(15));
    await enrichAll(t.db, workspaceId);
    const body = { mode: "text", q: "lantern", k: 3, params: { candidates: 3 } };
    const seen: string[] = [];
    const walked = await propose(body, false, recording(seen));
    expect(seen.some((sql) => sql.includes("engram_text_cells") && sql.includes("- w.found"))).toBe(true);
    const exact = await propose(body, true);
    expect(exact.map((c) => c.text_match)).toEqual(walked.map((c) => c.text_match));
    expect(ids(walked)).toEqual(ids(exact));
  });

  it("ends a one-word walk whose cut round holds only records a rare term already read", async () => {
    // "zircon" (rare: every record read outright by the first statement) is in two records that
    // also hold the common "harbor", in a cell of long records past the first statement's rounds;
    // the other harbor records are longer still. The second statement starts with those two
    // held as found and needs one more: the round of their cell is cut at one match, a record
    // already held. The walk then reads that round whole instead of cutting it again forever.
    const pad = (n: number) =>
      Array.from(
        { length: n },
        (_, j) => `qx${String.fromCharCode(97 + (j % 26))}${String.fromCharCode(97 + (((j / 26) | 0) % 26))}`,
      ).join(" ");
    const record = (text: string, i: number) => ({
      collection: "customer_events",
      entity: `customer-${i % 5}`,
      type: "ticket",
      text,
      content: { channel: "web" },
    });
    await t.writeRecords(
      headers,
      [0, 1].map((i) => record(`harbor zircon ${pad(300)}`, i)),
    );
    await t.writeRecords(
      headers,
      Array.from({ length: 40 }, (_, i) => record(`harbor ${pad(600)}`, i)),
    );
    await enrichAll(t.db, workspaceId);
    const body = { mode: "text", q: "harbor zircon", k: 3, params: { candidates: 3 } };
    const seen: string[] = [];
    // A walk that does not advance sends statements without end (and starves the event loop, so
    // no timeout fires): past 50 the recording refuses them and the walk fails here instead.
    seen.push = (...sqls: string[]) => {
      if (seen.length + sqls.length > 50) throw new Error("the walk sent over 50 statements");
      return Array.prototype.push.apply(seen, sqls);
    };
    const walked = await propose(body, false, recording(seen));
    expect(
      seen.filter((sql) => sql.includes("engram_text_cells") && sql.includes("- w.found")).length,
    ).toBeGreaterThan(1);
    const exact = await propose(body, true);
    expect(ids(walked)).toEqual(ids(exact));
    expect(walked.map((c) => c.text_match)).toEqual(exact.map((c) => c.text_match));
  }, 60_000);

  it("proposes only current values, never another workspace's records", async () => {
    const walked = await propose({ mode: "text", q: "refund", k: 10, params: { candidates: 50 } }, false);
    expect(ids(walked)).not.toContain(staleFact);
    const { rows } = await t.db.query<{ id: string }>("SELECT id FROM records WHERE workspace_id = $1", [
      otherId,
    ]);
    const others = new Set(rows.map((row) => row.id));
    expect(walked.some((c) => others.has(c.id))).toBe(false);
    expect(walked.length).toBeGreaterThan(10);
  });

  it("reads every record of a rare term outright beside the common words' cells", async () => {
    const seen: string[] = [];
    const body = { mode: "text", q: "refund ticket3", k: 5, params: { candidates: 5 } };
    const walked = await propose(body, false, recording(seen));
    const cells = seen.filter((sql) => sql.includes("engram_text_cells"));
    expect(cells.some((sql) => sql.includes("t.search_text @@"))).toBe(true);
    // ticket3 is in one record: it holds the rare term, so it is the best.
    const { rows } = await t.db.query<{ id: string }>(
      "SELECT id FROM records WHERE workspace_id = $1 AND text = $2",
      [workspaceId, textOf(3)],
    );
    expect(walked[0]?.id).toBe(rows[0]?.id);
    expect(ids(walked)).toEqual(ids(await propose(body, true)).slice(0, walked.length));
  });

  it("scores every match of an entity's records instead of reading the cells", async () => {
    const seen: string[] = [];
    await propose(
      { mode: "text", q: "refund", k: 5, scope: { entities: ["customer-1"] } },
      false,
      recording(seen),
    );
    expect(seen.some((sql) => sql.includes("engram_text_cells"))).toBe(false);
    expect(seen.some((sql) => sql.includes("ts_rank_cd('{1,1,1,1}'"))).toBe(true);
  });
});
