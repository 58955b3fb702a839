// Erasure refreshes the planner statistics it leaves behind: after ANALYZE, pg_stats holds sample
// values of every analyzed column and index expression (entity names, record texts, lexemes,
// content values, the text cells). Once the index-deletion job of an erasure through POST /erase,
// or of one by a retention policy, has run, none of the erased entity's name or words is left
// there (docs/operations.md, "What keeps a copy after an erasure"). The whole of pg_stats is
// searched: tables, expression indexes (tablename = the index) and, on Citus, the shards.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refreshStatistics } from "../../src/erasure/statistics.js";
import type { Db } from "../../src/platform/db/index.js";
import { runRetention } from "../../src/retention/index.js";
import { minimalFiles, PACKAGE_YAML } from "../support/catalog-files.js";
import { derivationHarness, type Harness, runJobs } from "../support/derivations.js";

const DAY = 86_400_000;

/** The erased entity, its words, the retention's, and an entity that stays (its name must show). */
const ERASED = "zyxerasedcustomer";
const ERASED_WORDS = ["zorblax", "vexquark"];
const RETAINED = "qwvtombstoned";
const RETAINED_WORD = "wobblefrump";
const KEEPER = "keepercustomer";

describe("erasure and planner statistics", () => {
  let h: Harness;
  // The next 12:00 UTC, so that the policy's 03:00 ticks fall between whole days (retention.test.ts).
  const t0 = Math.ceil((Date.now() - 12 * 3_600_000) / DAY) * DAY + 12 * 3_600_000;
  const retain = (days: number) =>
    runRetention(h.t.db, { maxRecords: 100_000, now: new Date(t0 + days * DAY) });

  /**
   * The distinct table.column of pg_stats whose sampled values contain the text; a Citus shard's
   * suffix (records_102008) is dropped.
   */
  async function statsHolding(text: string): Promise<string[]> {
    const { rows } = await h.t.db.transaction(async (tx) => {
      // Citus hides its shards, where a single node keeps the rows, from pg_class and so pg_stats.
      await tx.query("SET LOCAL citus.override_table_visibility = off");
      return tx.query<{ at: string }>(
        `SELECT DISTINCT regexp_replace(tablename, '_[0-9]+$', '') || '.' || attname AS at FROM pg_stats
       WHERE concat_ws(' ', most_common_vals::text, histogram_bounds::text, most_common_elems::text)
         ILIKE '%' || $1 || '%'
       ORDER BY 1`,
        [text],
      );
    });
    return rows.map((row) => row.at);
  }

  beforeAll(async () => {
    h = await derivationHarness(
      "statistics",
      minimalFiles({
        "packages/demo-pack.yaml": `${PACKAGE_YAML}retentions:
  - { name: old_facts, collection: facts@1, after_days: 30, cron: "0 3 * * *", max_pages: 1 }
`,
      }),
    );
    const note = (entity: string, text: string, topic: string) => ({
      collection: "notes",
      entity,
      type: "note",
      text,
      content: { topic, priority: 1 },
    });
    // Several records each, so that their values are common enough to be sampled as such.
    await h.write([
      ...Array.from({ length: 6 }, (_, i) =>
        note(ERASED, `${ERASED_WORDS.join(" ")} invoice number ${i}`, ERASED_WORDS[0] as string),
      ),
      ...Array.from({ length: 6 }, (_, i) => note(KEEPER, `ordinary invoice number ${i}`, "billing")),
      // Heads stay: ANALYZE leaves the statistics of a table it finds empty as they were
      // (docs/operations.md).
      ...["plan", "tier", "region", "owner"].map((key) => ({
        collection: "facts",
        entity: KEEPER,
        type: "fact",
        key,
        text: `ordinary ${key}`,
      })),
      ...["plan", "tier", "region", "owner"].map((key) => ({
        collection: "facts",
        entity: ERASED,
        type: "fact",
        key,
        text: `${ERASED_WORDS[1]} ${key}`,
      })),
    ]);
    const fact = (key: string, extra: object) => ({
      collection: "facts",
      entity: RETAINED,
      type: "fact",
      key,
      ...extra,
    });
    const keys = Array.from({ length: 4 }, (_, i) => `k${i}`);
    await h.write(keys.map((key) => fact(key, { text: `${RETAINED_WORD} value of ${key}` })));
    await h.write(keys.map((key) => fact(key, { text: "", tombstone: true })));
    // A text search builds the workspace's term statistics (text_stats).
    const searched = await h.post("/search", { mode: "text", q: "invoice" });
    expect(searched.statusCode, searched.body).toBe(200);
    // The policy's first sight records its latest tick without running it (src/retention/tick.ts).
    expect(await retain(0)).toBe(0);
    await h.t.db.query("ANALYZE");
  });
  afterAll(() => h?.close());

  it("holds the entity's name and words after ANALYZE (the checks below can fail)", async () => {
    expect(await statsHolding(ERASED)).toEqual(expect.arrayContaining(["records.entity", "heads.entity"]));
    for (const word of ERASED_WORDS) {
      expect(await statsHolding(word)).toEqual(expect.arrayContaining(["records.text"]));
    }
    // Its lexeme in the search vectors, the term statistics and the text cells' index; its
    // content value in a sorted field's expression index.
    const lexeme = await statsHolding(ERASED_WORDS[0] as string);
    expect(lexeme).toEqual(
      expect.arrayContaining([
        "records.content",
        "records.search_text",
        "records_text_cells.engram_text_cells",
        "text_stats.lexeme",
      ]),
    );
    expect(
      lexeme.some((at) => at.startsWith("records_field_")),
      lexeme.join(),
    ).toBe(true);
    expect((await statsHolding(RETAINED_WORD)).length).toBeGreaterThan(0);
  });

  it("POST /erase leaves neither the erased entity's name nor its words in pg_stats", async () => {
    const erased = await h.post("/erase", { entity: ERASED });
    expect(erased.statusCode, erased.body).toBe(200);
    await runJobs(h.t.db, h.ws.id, {});
    const job = (await h.get(`/jobs/${erased.json().index_delete_job_id}`)).json();
    expect(job).toMatchObject({ kind: "index_delete", state: "succeeded" });
    expect(await statsHolding(ERASED)).toEqual([]);
    for (const word of ERASED_WORDS) expect(await statsHolding(word), word).toEqual([]);
    // The statistics were refreshed, not dropped: the entities that remain are still sampled.
    expect(await statsHolding(KEEPER)).toEqual(expect.arrayContaining(["records.entity"]));
    expect((await statsHolding(RETAINED_WORD)).length).toBeGreaterThan(0);
  });

  it("a retention erasure leaves neither the slots' entity nor their words in pg_stats", async () => {
    const erased = await retain(31);
    expect(erased).toBe(4);
    await runJobs(h.t.db, h.ws.id, {});
    expect(await statsHolding(RETAINED)).toEqual([]);
    expect(await statsHolding(RETAINED_WORD)).toEqual([]);
    expect(await statsHolding(KEEPER)).toEqual(expect.arrayContaining(["records.entity", "heads.entity"]));
  });

  it("erasures close together share statistics refreshes", async () => {
    const db = h.t.db;
    let runs = 0;
    const counting = {
      query: (text: string, params?: unknown[]) => {
        if (text.startsWith("ANALYZE")) runs++;
        return db.query(text, params);
      },
    } as unknown as Db;
    const now = async () => (await db.query<{ at: Date }>("SELECT now() AS at")).rows[0]?.at as Date;
    const since = await now();
    // Five at once: the first run, and one more for those that came while it might have sampled.
    await Promise.all(Array.from({ length: 5 }, () => refreshStatistics(counting, since)));
    expect(runs).toBe(2);
    // Served already by a run that began after `since`.
    await refreshStatistics(counting, since);
    expect(runs).toBe(2);
    await refreshStatistics(counting, await now());
    expect(runs).toBe(3);
  });
});
