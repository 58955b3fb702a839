// Deferred vector indexing (src/records/vector-seal.ts): embeddings written while an enrichment
// backlog waits are stored out of the HNSW index and scanned exactly until the worker seals them,
// merged row by row or, on a server, built into a new index in bulk (embedded storage only
// merges). Either way every ready record is found, exactly once.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPostgres } from "../../src/platform/db/index.js";
import { type SealOptions, sealDeferredVectors } from "../../src/records/vector-seal.js";
import { createTestApp, type TestApp } from "../support/app.js";
import { onCitus, onServer } from "../support/db.js";
import { waitFor } from "../support/wait.js";
import { startTestWorker } from "../support/worker.js";

const WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima".split(" ");
// Distinct word triples: each text has one exact nearest record (similarity 1), itself.
const TEXTS = WORDS.flatMap((a, i) =>
  WORDS.slice(i + 1).flatMap((b, j) => WORDS.slice(i + j + 2).map((c) => `${a} ${b} ${c}`)),
);

const seal = (db: TestApp["db"], options: Partial<SealOptions> = {}) =>
  sealDeferredVectors(db, { bulkMinRows: 1000, buildMemory: "64MB", mergeBatch: 7, ...options });

describe("deferred vector indexing", () => {
  let t: TestApp;
  let headers: { authorization: string };
  let written = 0;

  const search = async (q: string, k: number) => {
    const res = await t.app.inject({
      method: "POST",
      url: "/search",
      headers,
      payload: { mode: "vector", q, k, include: ["text"] },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().hits as { id: string; text: string; score: number }[];
  };
  const count = async (sql: string) => (await t.db.query<{ n: number }>(sql)).rows[0]?.n ?? 0;
  const deferredTail = () =>
    count(`SELECT count(*)::int AS n FROM embeddings e JOIN vector_indexes v ON v.space = e.space
           WHERE e.deferred AND e.seq > v.built_through`);
  const state = async () =>
    (
      await t.db.query<{ space: string; index_name: string; built_through: number; built_rows: number }>(
        "SELECT space, index_name, built_through, built_rows FROM vector_indexes",
      )
    ).rows;
  const hnswIndexes = async () =>
    (
      await t.db.query<{ indexname: string; valid: boolean }>(
        `SELECT c.relname AS indexname, i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
         WHERE i.indrelid = 'embeddings'::regclass AND c.relname LIKE 'embeddings\\_hnsw\\_%' ORDER BY 1`,
      )
    ).rows;

  /** Writes texts as a backlog (six jobs queued before a worker starts), then enriches them all. */
  async function writeBacklog(texts: string[]): Promise<void> {
    const size = Math.ceil(texts.length / 6);
    for (let i = 0; i < texts.length; i += size) {
      await t.writeRecords(
        headers,
        texts
          .slice(i, i + size)
          .map((text) => ({ collection: "customer_events", entity: "c-1", type: "note", text })),
      );
    }
    written += texts.length;
    await enrichAll();
  }

  /** Runs a worker until every record is ready. It runs no periodic task: nothing is sealed. */
  async function enrichAll(): Promise<void> {
    const worker = await startTestWorker(t.db);
    try {
      await waitFor(
        async () => (await count("SELECT count(*)::int AS n FROM records WHERE NOT ready")) === 0,
      );
    } finally {
      await worker.stop();
    }
  }

  /** Each text comes back as its own nearest record, and a deep read has no duplicate. */
  async function expectAllFound(texts: string[]): Promise<void> {
    for (const text of texts) {
      const hits = await search(text, 1);
      expect(hits[0]?.text, text).toBe(text);
      expect(hits[0]?.score).toBe(1);
    }
    const deep = await search(texts[0] as string, 100);
    expect(deep).toHaveLength(Math.min(written, 100));
    expect(new Set(deep.map((h) => h.id)).size).toBe(deep.length);
  }

  beforeAll(async () => {
    // Searches walk the index and its deferred tail: this workspace is smaller than
    // VECTOR_EXACT_ROWS, below which they scan exactly (test/integration/vector-tenancy.test.ts).
    t = await createTestApp({ env: { VECTOR_EXACT_ROWS: "0" } });
    const ws = await t.workspace("deferred");
    headers = ws.headers;
    await t.publishExample(headers);
    await writeBacklog(TEXTS.slice(0, 60));
  });
  afterAll(() => t.close());

  // Not on Citus (src/records/embedding-index.ts canDeferVectors): each vector goes into its shard's index.
  it.runIf(onCitus)(
    "on Citus a backlog's embeddings go straight into the index: none is deferred",
    async () => {
      expect(await count("SELECT count(*)::int AS n FROM embeddings WHERE deferred")).toBe(0);
      expect(await count("SELECT count(*)::int AS n FROM embeddings")).toBe(60);
      expect(await seal(t.db)).toEqual([]);
    },
  );

  it.skipIf(onCitus)(
    "a backlog's embeddings are stored deferred, out of the space's first index",
    async () => {
      const deferred = await count("SELECT count(*)::int AS n FROM embeddings WHERE deferred");
      const [space] = await state();
      expect(space).toMatchObject({ built_through: 0, built_rows: 0 });
      expect(await hnswIndexes()).toEqual([
        { indexname: expect.stringMatching(/^embeddings_hnsw_[0-9a-f]{24}_0$/), valid: true },
      ]);
      // The first jobs saw others queued behind them; the last saw none and indexed at once.
      expect(deferred).toBeGreaterThan(0);
      expect(deferred).toBeLessThan(60);
    },
  );

  it("every ready record is found by vector search, deferred or not, exactly once", async () => {
    await expectAllFound(TEXTS.slice(0, 60));
  });

  it.skipIf(onCitus)("a small tail is merged into the current index row by row", async () => {
    const tail = await deferredTail();
    const [before] = await state();
    expect(await seal(t.db)).toEqual([{ space: before?.space, dimensions: 100, how: "merged", rows: tail }]);
    expect(await deferredTail()).toBe(0);
    expect(await state()).toEqual([before]);
    expect(await seal(t.db)).toEqual([]);
    await expectAllFound(TEXTS.slice(0, 60));
  });

  it.skipIf(onCitus)(
    "while enrichment waits in the queue, a tail short of a build is left alone",
    async () => {
      await t.writeRecords(headers, [
        { collection: "customer_events", entity: "c-1", type: "note", text: "queued alone" },
      ]);
      await t.db.exec("UPDATE embeddings SET deferred = true WHERE seq = (SELECT max(seq) FROM embeddings)");
      expect(await deferredTail()).toBe(1);
      expect(await seal(t.db)).toEqual([]);
      expect(await deferredTail()).toBe(1);
      await enrichAll();
      written += 1;
      expect((await seal(t.db))[0]).toMatchObject({ how: "merged", rows: 1 });
      expect(await deferredTail()).toBe(0);
    },
  );

  it.runIf(!onServer)(
    "embedded storage merges a large tail too: it never builds an index aside",
    async () => {
      await writeBacklog(TEXTS.slice(60, 120));
      const tail = await deferredTail();
      expect(tail).toBeGreaterThan(0);
      const before = await state();
      const indexes = await hnswIndexes();
      expect(await seal(t.db, { bulkMinRows: 1 })).toEqual([
        { space: before[0]?.space, dimensions: 100, how: "merged", rows: tail },
      ]);
      expect(await deferredTail()).toBe(0);
      expect(await state()).toEqual(before);
      expect(await hnswIndexes()).toEqual(indexes);
      await expectAllFound(TEXTS.slice(0, 120));
    },
  );

  it.runIf(onServer && !onCitus)(
    "a large tail is built into a new index, which replaces the old one",
    async () => {
      await writeBacklog(TEXTS.slice(60, 120));
      const tail = await deferredTail();
      expect(tail).toBeGreaterThan(0);
      const [before] = await state();
      const sealed = await seal(t.db, { bulkMinRows: 1 });
      expect(sealed).toEqual([{ space: before?.space, dimensions: 100, how: "built", rows: 121 }]);
      const [after] = await state();
      const last = await count("SELECT max(seq)::int AS n FROM embeddings WHERE deferred");
      expect(after?.built_through).toBe(last);
      expect(after?.built_rows).toBe(121);
      expect(after?.index_name).toBe(before?.index_name.replace(/_\d+$/, `_${last}`));
      expect(await hnswIndexes()).toEqual([{ indexname: after?.index_name, valid: true }]);
      expect(await deferredTail()).toBe(0);
      await t.db.exec("ANALYZE embeddings");
      const scans = await indexScans(after?.index_name as string);
      await expectAllFound(TEXTS.slice(0, 120));
      expect(await indexScans(after?.index_name as string)).toBeGreaterThan(scans);
    },
  );

  it.runIf(onServer && !onCitus)(
    "a search holding the state from before a build still finds every record once",
    async () => {
      await writeBacklog(TEXTS.slice(120, 200));
      // Sealed through another connection pool: this process's cached state is not told.
      const other = await openPostgres({ connectionString: t.testDb.url as string });
      try {
        const started = performance.now();
        await search(TEXTS[120] as string, 1); // caches the space's state in this process
        expect((await seal(other, { bulkMinRows: 1 }))[0]?.how).toBe("built");
        await expectAllFound(TEXTS.slice(190, 200));
        // Within the cache's lifetime: the searches above used the state from before the build.
        expect(performance.now() - started).toBeLessThan(2000);
      } finally {
        await other.close();
      }
      await expectAllFound(TEXTS.slice(0, 200));
      expect(await hnswIndexes()).toHaveLength(1);
    },
  );

  it.runIf(onServer && !onCitus)(
    "while enrichment waits, a tail is built once it reaches the build size, counted, not guessed from seqs",
    async () => {
      await t.writeRecords(headers, [
        { collection: "customer_events", entity: "c-1", type: "note", text: "queued behind a build" },
      ]);
      // Two rows past the build, and 50 seqs handed out without a deferred row (another space's,
      // or rows indexed at once): the sequence says up to 52, the tail holds 2.
      await t.db.exec(`UPDATE embeddings SET deferred = true, seq = nextval('embeddings_seq')
                       WHERE seq IN (SELECT seq FROM embeddings ORDER BY seq DESC LIMIT 2)`);
      await t.db.exec("SELECT setval('embeddings_seq', nextval('embeddings_seq') + 49)");
      // A tail need only reach the build size, not twice the last build's rows.
      await t.db.exec("UPDATE vector_indexes SET built_rows = 1");
      expect(await deferredTail()).toBe(2);
      const [before] = await state();
      expect(await seal(t.db, { bulkMinRows: 100 })).toEqual([]);
      expect(await seal(t.db, { bulkMinRows: 10 })).toEqual([]);
      expect(await deferredTail()).toBe(2);
      expect(await state()).toEqual([before]);
      const [sealed] = await seal(t.db, { bulkMinRows: 2 });
      expect(sealed).toMatchObject({ how: "built", rows: written });
      expect(await deferredTail()).toBe(0);
      await enrichAll();
      written += 1;
      await expectAllFound(TEXTS.slice(190, 200));
    },
  );

  it.runIf(onServer && !onCitus)(
    "a build yields to maintenance that waits behind it, and a later seal builds",
    async () => {
      await writeBacklog(TEXTS.slice(200, 220));
      // A tail long enough to be built, not merged.
      await t.db.exec(`UPDATE embeddings SET deferred = true, seq = nextval('embeddings_seq')
                       WHERE seq IN (SELECT seq FROM embeddings ORDER BY seq DESC LIMIT 100)`);
      const [before] = await state();
      const operator = new pg.Client({ connectionString: t.testDb.url });
      await operator.connect();
      try {
        // A snapshot older than the build's, as ANALYZE takes one before it asks for its lock.
        await operator.query("BEGIN ISOLATION LEVEL REPEATABLE READ");
        await operator.query("SELECT count(*) FROM records");
        const sealing = seal(t.db, { bulkMinRows: 1 });
        // The build waits for that snapshot to end ...
        await waitFor(async () => {
          const { rows } = await t.db.query(
            `SELECT 1 FROM pg_stat_activity
             WHERE wait_event = 'virtualxid' AND query LIKE 'CREATE INDEX CONCURRENTLY%'`,
          );
          return rows.length > 0;
        });
        // ... and the operator asks for the lock the build holds, as ANALYZE does: without the
        // yield, a deadlock that fails one of them.
        await operator.query("LOCK TABLE embeddings IN SHARE UPDATE EXCLUSIVE MODE");
        await operator.query("COMMIT");
        expect(await sealing).toEqual([]);
      } finally {
        await operator.end();
      }
      expect(await state()).toEqual([before]);
      expect(await hnswIndexes()).toEqual([{ indexname: before?.index_name, valid: true }]);
      expect((await seal(t.db, { bulkMinRows: 1 }))[0]?.how).toBe("built");
      await expectAllFound(TEXTS.slice(200, 220));
    },
  );

  it.skipIf(onCitus)(
    "an index a failed or interrupted build left behind is dropped by the next seal",
    async () => {
      const [current] = await state();
      const name = current?.index_name as string;
      const stray = name.replace(/_\d+$/, "_999999999");
      const definition = (
        await t.db.query<{ indexdef: string }>("SELECT indexdef FROM pg_indexes WHERE indexname = $1", [name])
      ).rows[0]?.indexdef as string;
      await t.db.exec(definition.replace(name, stray));
      expect(await hnswIndexes()).toHaveLength(2);
      expect(await seal(t.db)).toEqual([]);
      expect(await hnswIndexes()).toEqual([{ indexname: name, valid: true }]);
    },
  );

  it("a space indexed before deferral existed (no vector_indexes row) is never deferred", async () => {
    await t.db.exec("DELETE FROM vector_indexes");
    const before = await count("SELECT count(*)::int AS n FROM embeddings WHERE deferred");
    await writeBacklog(TEXTS.slice(200, 220));
    expect(await count("SELECT count(*)::int AS n FROM embeddings WHERE deferred")).toBe(before);
  });

  async function indexScans(name: string): Promise<number> {
    await t.db.query("SELECT pg_stat_force_next_flush()");
    return count(
      `SELECT COALESCE(sum(idx_scan), 0)::int AS n FROM pg_stat_user_indexes WHERE indexrelname = '${name}'`,
    );
  }
});
