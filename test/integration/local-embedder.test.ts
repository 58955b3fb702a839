// The local embedder through the whole path (docs/catalog.md, "The local embedder"): the example
// package, whose embedding alias is `adapter: local`, publishes with no MODEL_ENDPOINTS, the worker embeds
// the records, and a vector search finds each record by a query that shares no word with it.
// The vectors stored are exactly the ones the embedder computes, on PGlite and on the server.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { localEmbedding } from "../../src/models/local/adapter.js";
import { type WordVectors, wordVectors } from "../../src/models/local/vectors.js";
import { createTestApp, type TestApp } from "../support/app.js";
import { LOCAL_SPACE } from "../support/embedders.js";
import { exampleRequest } from "../support/example-catalog.js";
import { readmeCurls } from "../support/readme.js";
import { SYNONYMS } from "../support/synonyms.js";
import { enrichAll } from "../support/worker.js";

describe("the local embedder in a catalog", () => {
  let t: TestApp;
  let headers: { authorization: string };
  let table: WordVectors;
  let ids: string[];

  beforeAll(async () => {
    t = await createTestApp();
    const ws = await t.workspace("local-embedder");
    headers = ws.headers;
    await t.publishExample(headers);
    table = await wordVectors();
    ids = await t.writeRecords(
      headers,
      SYNONYMS.records.map((text, i) => ({
        collection: "customer_events",
        entity: `c${i}`,
        type: "note",
        text,
      })),
    );
    await enrichAll(t.db, ws.id);
  });
  afterAll(() => t.close());

  it.each(SYNONYMS.queries)("finds the record that means $query first", async ({ query, answer }) => {
    const res = await t.app.inject({
      method: "POST",
      url: "/search",
      headers,
      payload: { mode: "vector", q: query, k: 4, scope: { collections: ["customer_events"] } },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().hits[0]?.id).toBe(ids[answer]);
  });

  it("ranks a record with no known word (a zero vector) after every similar one, scanning exactly", async () => {
    // A small workspace scans its vectors exactly (VECTOR_EXACT_ROWS), where a zero vector's NaN
    // cosine would sort above every number.
    const ws = await t.workspace("local-embedder-zero");
    await t.publishExample(ws.headers);
    const texts = ["zqxv brrtk", "Card declined at checkout", "qqzv xkcdw plrt"];
    const written = await t.writeRecords(
      ws.headers,
      texts.map((text, i) => ({ collection: "customer_events", entity: `z${i}`, type: "note", text })),
    );
    await enrichAll(t.db, ws.id);
    const res = await t.app.inject({
      method: "POST",
      url: "/search",
      headers: ws.headers,
      payload: { mode: "vector", q: "payment refused", k: 3, explain: true },
    });
    expect(res.statusCode, res.body).toBe(200);
    const hits: { id: string; explain: { signals: { similarity: number | null } } }[] = res.json().hits;
    expect(hits[0]?.id).toBe(written[1]);
    expect(hits[0]?.explain.signals.similarity).toBeGreaterThan(0);
    for (const hit of hits.slice(1)) expect(hit.explain.signals.similarity).toBeNull();
  });

  it("stores exactly the vectors the embedder computes", async () => {
    const { rows } = await t.db.query<{ record_id: string; embedding: string }>(
      "SELECT record_id, embedding::text AS embedding FROM embeddings WHERE space = $1",
      [LOCAL_SPACE],
    );
    const stored = new Map(
      rows.map((row) => [row.record_id, (row.embedding.match(/-?[\d.]+(?:e[-+]?\d+)?/g) ?? []).map(Number)]),
    );
    SYNONYMS.records.forEach((text, i) => {
      const computed = localEmbedding(table, text).map(Math.fround);
      expect(stored.get(ids[i] as string)?.map(Math.fround)).toEqual(computed);
    });
  });

  it("refuses a local provider as a model target, or with another model or dimension count", async () => {
    const request = await exampleRequest();
    const models = request.files["conf/models.yaml"] as string;
    for (const [wrong, message] of [
      [models.replace('targets: ["local:fake-chat"]', 'targets: ["words:wink-sg-100d"]'), "only embeds"],
      [models.replace("model: wink-sg-100d", "model: glove-300"), "one model"],
      [models.replace("dimensions: 100", "dimensions: 300"), "100 dimensions"],
    ] as const) {
      expect(wrong).not.toBe(models);
      const res = await t.app.inject({
        method: "POST",
        url: "/catalog?dry_run=true",
        headers,
        payload: { ...request, files: { ...request.files, "conf/models.yaml": wrong } },
      });
      expect(res.statusCode, res.body).toBe(422);
      expect(res.body).toContain(message);
    }
  });
});

// The README's tour: its records written by its own command, then its two searches for a
// paraphrase of the declined card, as text (nothing) and hybrid (the record first).
describe("the README's paraphrase", () => {
  let t: TestApp;
  afterAll(() => t.close());

  it("is missed by text search and found first by the demo's hybrid search", async () => {
    t = await createTestApp();
    const ws = await t.workspace("readme-paraphrase");
    await t.publishExample(ws.headers);
    const curls = await readmeCurls({ KEY: ws.headers.authorization.slice("Bearer ".length) });
    const send = async (curl: (typeof curls)[number]) => {
      const res = await t.app.inject({
        method: curl.method,
        url: curl.url,
        headers: curl.headers,
        payload: curl.body,
      });
      expect(res.statusCode, `${curl.command}\n${res.body}`).toBe(200);
      return res.json();
    };
    const write = curls.find((c) => c.url === "/records" && c.body?.includes("Card declined at checkout"));
    const [text, hybrid] = curls.filter((c) => c.command.includes("transaction"));
    expect([write, text, hybrid].every(Boolean)).toBe(true);
    await send(write as (typeof curls)[number]);
    await enrichAll(t.db, ws.id);
    expect(JSON.parse(text?.body ?? "{}").mode).toBe("text");
    expect((await send(text as (typeof curls)[number])).hits).toEqual([]);
    const found = await send(hybrid as (typeof curls)[number]);
    expect(found.hits[0]?.text).toBe("Card declined at checkout");
  });
});
