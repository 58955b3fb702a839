// Text proposals read from the term-frequency tiers (src/search/text-tiers.ts, migration 0015):
// the ranking is ts_rank_cd's, so the records that repeat the query's words most come first,
// newest first among equals, with every visibility rule and filter applied and nothing of
// another workspace; the tiers and scoring every match propose the same records.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requireCatalog } from "../../src/catalog/index.js";
import { searchParts, validateSearchSpec } from "../../src/catalog/search-spec.js";
import type { Db } from "../../src/platform/db/index.js";
import { textCandidates } from "../../src/search/candidates.js";
import { createTestApp, type TestApp } from "../support/app.js";
import { enrichAll } from "../support/worker.js";

const CHANNELS = ["email", "chat", "phone", "web"] as const;

interface Written {
  id: string;
  refund: number;
  invoice: number;
  channel: string;
}

/** A seeded spread of counts: 0..9 refunds and 0..4 invoices, not in write order. */
function corpus(n: number) {
  return Array.from({ length: n }, (_, i) => ({
    refund: (i * 7) % 10,
    invoice: (i * 3) % 5,
    channel: CHANNELS[i % 4] as string,
  }));
}

function textOf(row: { refund: number; invoice: number }, i: number): string {
  const words = [`ticket${i}`, "customer", "wrote"];
  for (let j = 0; j < row.refund; j++) words.push("refund", "please");
  for (let j = 0; j < row.invoice; j++) words.push("invoice");
  return words.join(" ");
}

/** Expected order: most occurrences of the counted words first, newest (highest seq) among equals. */
function expected(rows: Written[], count: (row: Written) => number, k: number): string[] {
  return rows
    .map((row, seq) => ({ row, seq, n: count(row) }))
    .filter((x) => x.n > 0)
    .sort((a, b) => b.n - a.n || b.seq - a.seq)
    .slice(0, k)
    .map((x) => x.row.id);
}

describe("search: text proposals from term-frequency tiers", () => {
  let t: TestApp;
  let headers: { authorization: string };
  let workspaceId: string;
  let rows: Written[] = [];
  let otherIds: string[] = [];
  let staleFact: string | undefined;
  const ok = async (body: object) => {
    const res = await t.app.inject({ method: "POST", url: "/search", headers, payload: body });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().hits.map((hit: { id: string }) => hit.id) as string[];
  };
  /** Text mode ranked by text_match alone, with a small pool so the tiers serve it. */
  const text = (q: string, extra: object = {}) =>
    ok({ mode: "text", q, k: 8, params: { candidates: 8 }, rank: ["text_match"], ...extra });

  beforeAll(async () => {
    t = await createTestApp();
    const ws = await t.workspace("tiers");
    const other = await t.workspace("tiers-other");
    headers = ws.headers;
    workspaceId = ws.id;
    await t.publishExample(headers);
    await t.publishExample(other.headers);
    // A keyed fact repeating the word, then superseded: only the current value may be proposed.
    [staleFact] = await t.writeRecords(headers, [
      {
        collection: "customer_facts",
        entity: "customer-0",
        type: "note",
        key: "note",
        text: textOf({ refund: 40, invoice: 0 }, 99),
      },
    ]);
    await t.writeRecords(headers, [
      { collection: "customer_facts", entity: "customer-0", type: "note", key: "note", text: "settled" },
    ]);
    const plan = corpus(60);
    const ids = await t.writeRecords(
      headers,
      plan.map((row, i) => ({
        collection: "customer_events",
        entity: `customer-${i % 5}`,
        type: "ticket",
        text: textOf(row, i),
        content: { channel: row.channel },
      })),
    );
    rows = plan.map((row, i) => ({ ...row, id: ids[i] as string }));
    // The other workspace repeats the words far more often: none of it may be proposed here.
    otherIds = await t.writeRecords(
      other.headers,
      Array.from({ length: 10 }, (_, i) => ({
        collection: "customer_events",
        entity: "elsewhere",
        type: "ticket",
        text: textOf({ refund: 30 + i, invoice: 20 }, i),
      })),
    );
    await enrichAll(t.db, workspaceId);
    await enrichAll(t.db, other.id);
  }, 120_000);

  afterAll(async () => {
    await t?.close();
  });

  it("indexes a token per word occurring at least twice: workspace, count tier, lexeme", async () => {
    const row = rows.find((r) => r.refund === 9 && r.invoice === 1) ?? rows.find((r) => r.refund === 9);
    const { rows: found } = await t.db.query<{ tokens: string[] }>(
      "SELECT engram_text_tiers(workspace_id, search_text) AS tokens FROM records WHERE id = $1",
      [row?.id],
    );
    const tokens = found[0]?.tokens ?? [];
    expect(tokens).toContain(`${workspaceId}:9:refund`);
    expect(tokens).toContain(`${workspaceId}:9:pleas`);
    // A word written once has no token.
    expect(tokens.some((token) => token.endsWith(":custom"))).toBe(false);
  });

  it("buckets counts above 32 by four per doubling, up to the 255 positions a tsvector keeps", async () => {
    const { rows: found } = await t.db.query<{ tokens: string[] }>(
      `SELECT engram_text_tiers('00000000-0000-0000-0000-000000000000',
         to_tsvector('english', repeat('refund ', 45) || repeat('invoice ', 300) || repeat('ticket ', 32))) AS tokens`,
    );
    expect([...(found[0]?.tokens ?? [])].sort()).toEqual(
      [
        "00000000-0000-0000-0000-000000000000:224:invoic",
        "00000000-0000-0000-0000-000000000000:40:refund",
        "00000000-0000-0000-0000-000000000000:32:ticket",
      ].sort(),
    );
  });

  it("ranks one word by how often a record holds it, newest first among equals", async () => {
    const hits = await text("refund");
    expect(hits).toEqual(expected(rows, (r) => r.refund, 8));
    expect(hits.some((id) => otherIds.includes(id))).toBe(false);
  });

  it("ranks several words by their occurrences together", async () => {
    const hits = await text("refund invoice");
    expect(hits).toEqual(expected(rows, (r) => r.refund + r.invoice, 8));
  });

  it("applies where filters to the tiered records", async () => {
    const hits = await text("refund", {
      scope: { collections: ["customer_events"] },
      where: { channel: { eq: "chat" } },
    });
    const chat = rows.filter((r) => r.channel === "chat");
    expect(hits).toEqual(expected(chat, (r) => r.refund, 8));
  });

  it("keeps excluded terms out", async () => {
    const hits = await text("refund -invoice");
    const without = rows.filter((r) => r.invoice === 0);
    expect(hits).toEqual(expected(without, (r) => r.refund, 8));
  });

  it("proposes only the current value of a keyed slot", async () => {
    const hits = await ok({
      mode: "text",
      q: "refund",
      k: 3,
      params: { candidates: 3 },
      rank: ["text_match"],
    });
    expect(hits).not.toContain(staleFact);
    expect(hits).toEqual(expected(rows, (r) => r.refund, 3));
  });

  describe("against scoring every match", () => {
    const propose = async (body: object, exhaustiveText: boolean, db: Db = t.db, workspace = workspaceId) => {
      const catalog = await requireCatalog(db, workspace);
      const spec = validateSearchSpec(body, catalog.index, { maxQueryChars: 10_000 });
      const [part] = searchParts(spec);
      if (!part) throw new Error("no part");
      const found = await textCandidates(
        { db, workspaceId: workspace, catalog, part, q: spec.q, query: undefined, exhaustiveText },
        part.params.candidates,
      );
      return found.map((c) => c.id);
    };
    /** The database with every statement's text (and, when asked, parameters) recorded. */
    const recording = (seen: string[], values: unknown[] = []): Db =>
      new Proxy(t.db, {
        get(target, property) {
          if (property === "query" || property === "queryRepeated") {
            return (sql: string, params?: unknown[]) => {
              seen.push(sql);
              values.push(...(params ?? []));
              return property === "query"
                ? target.query(sql, params)
                : target.queryRepeated(sql, params ?? []);
            };
          }
          const value = Reflect.get(target, property);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });

    it.each([
      ["refund", {}],
      ["invoice", {}],
      ["refund invoice", {}],
      ["refund -invoice", {}],
      [
        "invoice please",
        { scope: { collections: ["customer_events"] }, where: { channel: { eq: "phone" } } },
      ],
      ["refund", { scope: { collections: ["customer_events", "customer_facts"] } }],
    ])("%s %j: the tiers propose what scoring every match does", async (q, extra) => {
      const body = { mode: "text", q, k: 5, params: { candidates: 5 }, ...extra };
      const seen: string[] = [];
      const tiered = await propose(body, false, recording(seen));
      expect(seen.some((sql) => sql.includes("engram_text_tiers"))).toBe(true);
      expect(tiered).toEqual(await propose(body, true));
      expect(tiered).toHaveLength(5);
    });

    it("reads every record of a rare word (by the planner's statistics) beside the common words' tiers", async () => {
      await t.db.exec("ANALYZE records");
      // ticket3 is written once, in one record; refund is in most records, often repeated.
      const body = { mode: "text", q: "refund ticket3", k: 5, params: { candidates: 5 } };
      const seen: string[] = [];
      const values: unknown[] = [];
      const tiered = await propose(body, false, recording(seen, values));
      expect(tiered).toEqual(await propose(body, true));
      expect(tiered).toHaveLength(5);
      // One tier statement reads the rare word's records through the full-text index.
      const tierStatements = seen.filter((sql) => sql.includes("engram_text_tiers"));
      expect(tierStatements.length).toBeGreaterThan(0);
      expect(tierStatements.every((sql) => sql.includes("::tsquery"))).toBe(true);
      expect(values).toContain("'ticket3'");
      expect(
        values.some((v) => Array.isArray(v) && v.some((token) => String(token).endsWith(":refund"))),
      ).toBe(true);
      expect(
        values.some((v) => Array.isArray(v) && v.some((token) => String(token).endsWith(":ticket3"))),
      ).toBe(false);
    });

    it("proposes a record once when the walk reads it in the tiers of two words", async () => {
      // One record repeats alpha 5 times and omega 4 times; 30 others hold each once (no tier).
      // Two candidates walk alpha's tier 5, then omega's tier 4, which reads that record again.
      const ws = await t.workspace("tiers-twice");
      await t.publishExample(ws.headers);
      const repeated = `${"alpha ".repeat(5)}${"omega ".repeat(4)}`;
      await t.writeRecords(
        ws.headers,
        [...Array.from({ length: 30 }, (_, i) => `alpha omega filler${i}`), repeated].map((text) => ({
          collection: "customer_events",
          entity: "customer-0",
          type: "ticket",
          text,
        })),
      );
      await enrichAll(t.db, ws.id);
      await t.db.exec("ANALYZE records");
      const body = { mode: "text", q: "alpha omega", k: 2, params: { candidates: 2 } };
      const seen: string[] = [];
      const tiered = await propose(body, false, recording(seen), ws.id);
      expect(seen.some((sql) => sql.includes("engram_text_tiers"))).toBe(true);
      expect(tiered).toEqual(await propose(body, true, t.db, ws.id));
      expect(new Set(tiered).size).toBe(2);
    });

    it("reads the less common word's low tiers rather than the very common word's", async () => {
      // Three records repeat zebra 6 times: the walk stops at tier 6, where an unread record may
      // still hold each word 5 times (rank 1.0 against the third's 0.6). Reading both words down
      // to tier 3 would read the 30 records repeating zebra 3 or 4 times; quokka, the less common
      // word, is read down to tier 2 instead, and zebra only to tier 5 (1 + 4 occurrences < 6).
      const ws = await t.workspace("tiers-per-word");
      await t.publishExample(ws.headers);
      const texts = [
        ...Array.from({ length: 3 }, (_, i) => `${"zebra ".repeat(6)}six${i}`),
        `${"quokka ".repeat(4)}${"zebra ".repeat(3)}best`,
        ...Array.from({ length: 30 }, (_, i) => `${"zebra ".repeat(3 + (i % 2))}some${i}`),
        ...Array.from({ length: 60 }, (_, i) => `zebra quokka once${i}`),
      ];
      const ids = await t.writeRecords(
        ws.headers,
        texts.map((text) => ({ collection: "customer_events", entity: "customer-0", type: "ticket", text })),
      );
      await t.writeRecords(
        ws.headers,
        Array.from({ length: 60 }, (_, i) => ({
          collection: "customer_events",
          entity: "customer-1",
          type: "ticket",
          text: `zebra alone${i}`,
        })),
      );
      await enrichAll(t.db, ws.id);
      await t.db.exec("ANALYZE records");
      const body = { mode: "text", q: "zebra quokka", k: 3, params: { candidates: 3 } };
      const seen: string[] = [];
      const values: unknown[] = [];
      const tiered = await propose(body, false, recording(seen, values), ws.id);
      expect(tiered).toEqual(await propose(body, true, t.db, ws.id));
      expect(tiered[0]).toBe(ids[3]);
      const tiers = seen.filter((sql) => sql.includes("engram_text_tiers"));
      expect(tiers).toHaveLength(2);
      const tokens = values.filter((v): v is string[] => Array.isArray(v) && String(v[0]).includes(":"));
      const read = (tokens.at(-1) ?? []).map((token) => token.split(":").slice(1).join(":"));
      expect(read).toContain("2:quokka");
      expect(read).toContain("5:zebra");
      expect(read).not.toContain("4:zebra");
      // Only the tiers below the walk's: what it read is merged in, not read again.
      expect(read).not.toContain("6:zebra");
      expect(read).not.toContain("6:quokka");
    });

    it("tops the pool up with other matches when the tiers hold the best k but fewer than the pool", async () => {
      // 12 records repeat alpha 2..5 times (tiered), 200 hold it once: a pool of 20 needs 8 of
      // those, and any 8 rank below the best 5, so no statement scores every match.
      const ws = await t.workspace("tiers-top-up");
      await t.publishExample(ws.headers);
      const texts = [
        ...Array.from({ length: 200 }, (_, i) => `alpha once${i}`),
        ...Array.from({ length: 12 }, (_, i) => `${"alpha ".repeat(2 + (i % 4))}repeated${i}`),
      ];
      const ids = await t.writeRecords(
        ws.headers,
        texts.map((text) => ({ collection: "customer_events", entity: "customer-0", type: "ticket", text })),
      );
      await enrichAll(t.db, ws.id);
      await t.db.exec("ANALYZE records");
      const body = { mode: "text", q: "alpha", k: 5, params: { candidates: 20 } };
      const seen: string[] = [];
      const tiered = await propose(body, false, recording(seen), ws.id);
      const exhaustive = await propose(body, true, t.db, ws.id);
      expect(seen.some((sql) => sql.includes("engram_text_tiers"))).toBe(true);
      // The statement scoring every match orders them all by rank; the top-up takes any.
      const scoresEvery = (sql: string) =>
        !sql.includes("engram_text_tiers") && sql.includes("ORDER BY text_match");
      expect(seen.some(scoresEvery)).toBe(false);
      expect(tiered.slice(0, 5)).toEqual(exhaustive.slice(0, 5));
      expect(tiered).toHaveLength(20);
      expect(new Set(tiered).size).toBe(20);
      // Every repeating record first (the tiers), then 8 of those holding the word once.
      const repeating = new Set(ids.slice(200));
      expect(tiered.slice(0, 12).every((id) => repeating.has(id))).toBe(true);
      expect(tiered.slice(12).every((id) => ids.slice(0, 200).includes(id))).toBe(true);
    });

    /** A workspace of ticket records with these texts (and channels, when given), enriched and analyzed. */
    const workspaceOf = async (name: string, texts: string[], channels: string[] = []) => {
      const ws = await t.workspace(name);
      await t.publishExample(ws.headers);
      const ids = await t.writeRecords(
        ws.headers,
        texts.map((text, i) => ({
          collection: "customer_events",
          entity: `customer-${i % 3}`,
          type: "ticket",
          text,
          content: channels[i] ? { channel: channels[i] } : {},
        })),
      );
      await enrichAll(t.db, ws.id);
      await t.db.exec("ANALYZE records");
      return { id: ws.id, ids };
    };
    /** A statement ordering every match by its rank: neither a tier read nor a level. */
    const scoresEvery = (sql: string) =>
      sql.includes("ORDER BY text_match") &&
      !sql.includes("engram_text_tiers") &&
      !sql.includes("r.id <> ALL");
    /** Expected top k by (occurrences, newest) where count gives a text's occurrences. */
    const byOccurrences = (texts: string[], ids: string[], count: (text: string) => number, k: number) =>
      texts
        .map((text, seq) => ({ id: ids[seq] as string, seq, n: count(text) }))
        .filter((x) => x.n > 0)
        .sort((a, b) => b.n - a.n || b.seq - a.seq)
        .slice(0, k)
        .map((x) => x.id);
    const occurrences = (words: string[]) => (text: string) =>
      text.split(" ").filter((word) => words.includes(word)).length;

    it("below the tiers, reads the records holding the most words first, never every match", async () => {
      // Two records repeat kiwi (the only tier), four hold all three words once (0.3), twelve
      // hold two of them (0.2) and 300 one (0.1): the best 8 are the four, then the newest of
      // those ranking 0.2, read as the records holding three words, then two. Each word is in
      // over 100 records, common for a pool of 8 (a word in fewer is read whole).
      const texts = [
        ...Array.from({ length: 100 }, (_, i) => `kiwi one${i}`),
        "kiwi kiwi twice0",
        ...Array.from({ length: 6 }, (_, i) => `kiwi mango pair${i}`),
        "papaya mango kiwi all0",
        ...Array.from({ length: 100 }, (_, i) => `mango one${i}`),
        "kiwi papaya mango all1",
        ...Array.from({ length: 6 }, (_, i) => `mango papaya pair${i}`),
        "kiwi kiwi twice1",
        "mango kiwi papaya all2",
        ...Array.from({ length: 100 }, (_, i) => `papaya one${i}`),
        "papaya kiwi mango all3",
      ];
      const ws = await workspaceOf("tiers-levels", texts);
      const body = { mode: "text", q: "kiwi mango papaya", k: 8, params: { candidates: 8 } };
      const seen: string[] = [];
      const values: unknown[] = [];
      const tiered = await propose(body, false, recording(seen, values), ws.id);
      expect(tiered).toEqual(await propose(body, true, t.db, ws.id));
      expect(tiered).toEqual(byOccurrences(texts, ws.ids, occurrences(["kiwi", "mango", "papaya"]), 8));
      expect(seen.some(scoresEvery)).toBe(false);
      // The levels' conjunctions, the words in the order of their rarity: all three, then two.
      const literals = values.filter((v): v is string => typeof v === "string" && v.startsWith("("));
      expect(literals.some((v) => /^\('\w+' & '\w+' & '\w+'\)$/.test(v))).toBe(true);
      expect(literals.some((v) => /^\('\w+' & '\w+'\)( \| \('\w+' & '\w+'\)){2}$/.test(v))).toBe(true);
    });

    it("keeps the walk's records, a rare word's among them, when it reads lower tiers", async () => {
      // The walk stops at zebra's tier 6 (three records) beside yak's one record, read whole as a
      // rare word; an unread record may still rank 1.0, so the tiers below 6 are read next, and
      // only those: the yak record (0.8) comes from the walk, the quokka one (0.7) from below.
      const texts = [
        ...Array.from({ length: 3 }, (_, i) => `${"zebra ".repeat(6)}six${i}`),
        `${"quokka ".repeat(4)}${"zebra ".repeat(3)}best`,
        `${"yak ".repeat(8)}rare`,
        ...Array.from({ length: 30 }, (_, i) => `${"zebra ".repeat(3 + (i % 2))}some${i}`),
        ...Array.from({ length: 60 }, (_, i) => `zebra quokka once${i}`),
      ];
      const ws = await workspaceOf("tiers-lower-rare", texts);
      const body = { mode: "text", q: "zebra quokka yak", k: 3, params: { candidates: 3 } };
      const seen: string[] = [];
      const values: unknown[] = [];
      const tiered = await propose(body, false, recording(seen, values), ws.id);
      expect(tiered).toEqual([ws.ids[4], ws.ids[3], ws.ids[2]]);
      expect(tiered).toEqual(await propose(body, true, t.db, ws.id));
      const tierStatements = seen.filter((sql) => sql.includes("engram_text_tiers"));
      expect(tierStatements).toHaveLength(2);
      // The rare word is read in the walk only.
      expect(tierStatements[0]).toContain("::tsquery");
      expect(values.filter((v) => v === "'yak'")).toHaveLength(1);
      expect(seen.some(scoresEvery)).toBe(false);
    });

    it("at the lowest level, takes the newest records holding a word once", async () => {
      // Three records repeat quince; 120 hold it once, and the best 6 need three of those: all
      // rank the same, so the newest three, found without scoring the others.
      const texts = [
        ...Array.from({ length: 60 }, (_, i) => `quince once${i}`),
        "quince quince quince thrice0",
        "quince quince twice0",
        ...Array.from({ length: 60 }, (_, i) => `quince later${i}`),
        "quince quince twice1",
        ...Array.from({ length: 40 }, (_, i) => `unrelated${i}`),
      ];
      const ws = await workspaceOf("tiers-lowest-level", texts);
      const body = { mode: "text", q: "quince", k: 6, params: { candidates: 6 } };
      const seen: string[] = [];
      const tiered = await propose(body, false, recording(seen), ws.id);
      expect(tiered).toEqual(await propose(body, true, t.db, ws.id));
      expect(tiered).toEqual(byOccurrences(texts, ws.ids, occurrences(["quince"]), 6));
      expect(seen.some(scoresEvery)).toBe(false);
      expect(seen.some((sql) => sql.includes("ORDER BY r.seq DESC LIMIT"))).toBe(true);
    });

    it("does not top the pool up when the lowest level has given every match left", async () => {
      // 300 email records hold quince once; of the chat ones three repeat it and two hold it
      // once. A chat search for a pool of 8 walks every tier (3 found), then the lowest level
      // answers the two others, fewer than k: no visible match is left for a top-up to look for.
      const texts = [
        ...Array.from({ length: 300 }, (_, i) => `quince email${i}`),
        ...Array.from({ length: 3 }, (_, i) => `${"quince ".repeat(2 + i)}chat${i}`),
        ...Array.from({ length: 2 }, (_, i) => `quince chatonce${i}`),
      ];
      const channels = texts.map((_, i) => (i < 300 ? "email" : "chat"));
      const ws = await workspaceOf("tiers-every-match", texts, channels);
      const body = {
        mode: "text",
        q: "quince",
        k: 6,
        params: { candidates: 8 },
        scope: { collections: ["customer_events"] },
        where: { channel: { eq: "chat" } },
      };
      const seen: string[] = [];
      const tiered = await propose(body, false, recording(seen), ws.id);
      expect(tiered).toEqual(await propose(body, true, t.db, ws.id));
      expect(tiered).toEqual([302, 301, 300, 304, 303].map((i) => ws.ids[i]));
      expect(seen.some((sql) => sql.includes("ORDER BY r.seq DESC LIMIT"))).toBe(true);
      const topsUp = (sql: string) =>
        sql.includes("r.id <> ALL") && !/ORDER BY (text_match|r\.seq)/.test(sql);
      expect(seen.some(topsUp)).toBe(false);
    });

    it.each([
      ["excluded terms", "lime lemon -melon", {}],
      ["where filters", "lime lemon melon", { where: { channel: { eq: "chat" } } }],
    ])("the levels keep %s", async (name, q, extra) => {
      const shapes = ["lime", "lemon", "melon", "lime lemon", "lemon melon", "lime lemon melon"];
      const texts = Array.from({ length: 300 }, (_, i) => `${shapes[i % 6]} filler${i}`);
      const channels = texts.map((_, i) => CHANNELS[Math.floor(i / 6) % 4] as string);
      const ws = await workspaceOf(`tiers-levels-${name.replace(" ", "-")}`, texts, channels);
      const body = {
        mode: "text",
        q,
        k: 7,
        params: { candidates: 7 },
        scope: { collections: ["customer_events"] },
        ...extra,
      };
      const seen: string[] = [];
      const tiered = await propose(body, false, recording(seen), ws.id);
      expect(tiered).toEqual(await propose(body, true, t.db, ws.id));
      expect(tiered).toHaveLength(7);
      expect(seen.some(scoresEvery)).toBe(false);
      const kept = texts.map((text, i) =>
        (q.includes("-melon") && text.includes("melon")) || ("where" in extra && channels[i] !== "chat")
          ? ""
          : text,
      );
      expect(tiered).toEqual(byOccurrences(kept, ws.ids, occurrences(["lime", "lemon", "melon"]), 7));
    });

    it("reads every word down to its lowest tier before the levels when the walk stopped above it", async () => {
      // Three records repeat plum 3 times: the walk stops at tier 3 with the third at 0.3. Below
      // it a record may hold each of the three words twice; even at tier 2 one holding each once
      // ties the third, and the four newest such records outrank it by being newer.
      const texts = [
        ...Array.from({ length: 60 }, (_, i) => `plum single${i}`),
        ...Array.from({ length: 3 }, (_, i) => `plum plum plum thrice${i}`),
        ...Array.from({ length: 40 }, (_, i) => `pear pear twice${i}`),
        ...Array.from({ length: 4 }, (_, i) => `plum pear fig all${i}`),
        ...Array.from({ length: 60 }, (_, i) => `fig once${i}`),
      ];
      const ws = await workspaceOf("tiers-walk-above", texts);
      const body = { mode: "text", q: "plum pear fig", k: 3, params: { candidates: 3 } };
      const seen: string[] = [];
      const tiered = await propose(body, false, recording(seen), ws.id);
      expect(tiered).toEqual(await propose(body, true, t.db, ws.id));
      expect(tiered).toEqual(byOccurrences(texts, ws.ids, occurrences(["plum", "pear", "fig"]), 3));
      expect(seen.some(scoresEvery)).toBe(false);
    });

    it("a query of rare words only scores every match", async () => {
      await t.db.exec("ANALYZE records");
      const body = { mode: "text", q: "ticket3 ticket17", k: 5, params: { candidates: 5 } };
      const seen: string[] = [];
      const found = await propose(body, false, recording(seen));
      expect(found).toEqual(await propose(body, true));
      expect(found).toHaveLength(2);
      expect(seen.some((sql) => sql.includes("engram_text_tiers"))).toBe(false);
    });

    it("a quoted phrase, or words that are rare for a pool of 200, score every match", async () => {
      for (const body of [
        { mode: "text", q: '"refund please"', params: { candidates: 5 } },
        { mode: "text", q: "wrote refund", params: { candidates: 200 } },
      ]) {
        const seen: string[] = [];
        const found = await propose(body, false, recording(seen));
        expect(found).toEqual(await propose(body, true));
        expect(found.length).toBeGreaterThan(0);
        expect(seen.some((sql) => sql.includes("ts_rank_cd") && !sql.includes("engram_text_tiers"))).toBe(
          true,
        );
      }
    });
  });
});
