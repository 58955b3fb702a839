// The storage layout a server serves (CONVENTIONS.md, Storage): postgres/hnsw wherever the
// server offers pgvector, postgres/exact only when VECTOR_LAYOUT=exact forces it (or pgvector
// is missing); stored vectors are converted by `engram migrate --vector-layout` alone, and a
// start in the other layout refuses the store and leaves it as it was.
import type { FastifyInstance } from "fastify";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prepareDatabase } from "../../src/database.js";
import { buildApp } from "../../src/http/index.js";
import { type Db, openPostgres, type VectorLayout } from "../../src/platform/db/index.js";
import { createTestApp, type TestApp, testConfig } from "../support/app.js";
import { onCitus, onServer } from "../support/db.js";
import { testVectorLayout } from "../support/urls.js";
import { enrichAll } from "../support/worker.js";

/** Whether the server itself offers pgvector, asked on a connection of our own (not through Engram). */
async function serverOffersPgvector(): Promise<boolean> {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  try {
    const { rows } = await client.query("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'");
    return rows.length > 0;
  } finally {
    await client.end();
  }
}

async function columnType(db: Db): Promise<string | undefined> {
  const { rows } = await db.query<{ type: string }>(
    "SELECT format_type(atttypid, atttypmod) AS type FROM pg_attribute WHERE attrelid = 'embeddings'::regclass AND attname = 'embedding'",
  );
  return rows[0]?.type;
}

async function hnswIndexCount(db: Db): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM pg_indexes WHERE tablename = 'embeddings' AND indexdef ILIKE '%USING hnsw%'",
  );
  return rows[0]?.n ?? 0;
}

// A Citus coordinator names its engine citus (citus/hnsw, citus/exact).
const engine = onCitus ? "citus" : "postgres";

describe.runIf(onServer)("server storage layout", () => {
  let t: TestApp;
  let ws: Awaited<ReturnType<TestApp["workspace"]>>;
  let offers: boolean;
  const forced = testVectorLayout() === "exact";

  const vectorSearch = async (app: FastifyInstance, q: string) => {
    const res = await app.inject({
      method: "POST",
      url: "/search",
      headers: ws.headers,
      payload: { mode: "vector", q, k: 3, include: ["text"] },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  const write = async (app: FastifyInstance, texts: string[]) => {
    const records = texts.map((text) => ({
      collection: "customer_events",
      entity: "c-1",
      type: "note",
      text,
    }));
    const res = await app.inject({
      method: "POST",
      url: "/records",
      headers: ws.headers,
      payload: { records },
    });
    expect(res.statusCode, res.body).toBe(200);
  };

  beforeAll(async () => {
    offers = await serverOffersPgvector();
    t = await createTestApp();
    ws = await t.workspace("layout");
    // Hashed vectors tell "golf hotel 0" from "golf hotel 1" (word vectors nearly tie them):
    // this file is about the layouts, not about meaning.
    await t.publishExample(ws.headers, "fake");
    await write(t.app, ["alpha bravo", "charlie delta", "echo foxtrot"]);
    await enrichAll(t.db, ws.id);
  });
  afterAll(() => t.close());

  it("a server offering pgvector serves postgres/hnsw unless VECTOR_LAYOUT=exact forces the exact scan", async () => {
    const expected = offers && !forced ? `${engine}/hnsw` : `${engine}/exact`;
    const schema = await t.app.inject({ method: "GET", url: "/rank/schema", headers: ws.headers });
    expect(schema.json().backend.layout).toBe(expected);
    expect((await vectorSearch(t.app, "charlie delta")).backend[0].layout).toBe(expected);
    expect(await columnType(t.db)).toBe(expected === `${engine}/hnsw` ? "vector" : "real[]");
    expect(await hnswIndexCount(t.db)).toBe(expected === `${engine}/hnsw` ? 1 : 0);
    if (forced) {
      // Forced exact never installs the extension into the database.
      const { rows } = await t.db.query("SELECT 1 FROM pg_extension WHERE extname = 'vector'");
      expect(rows).toEqual([]);
    }
  });

  it("stored vectors are converted by the explicit step when the database is reopened in the other layout, and stay searchable", async (ctx) => {
    // Without pgvector on the server there is no other layout to convert to.
    if (!offers) ctx.skip();
    const url = t.testDb.url as string;
    const run: VectorLayout = forced ? "exact" : "auto";
    const other: VectorLayout = forced ? "auto" : "exact";
    const expectations = {
      auto: ["vector", 1, `${engine}/hnsw`],
      exact: ["real[]", 0, `${engine}/exact`],
    } as const;
    let texts = ["alpha bravo", "charlie delta", "echo foxtrot"];
    for (const [step, layout] of [other, run].entries()) {
      const db = await openPostgres({ connectionString: url, vectorLayout: layout });
      const app = await buildApp({ config: testConfig(), db, version: "test" });
      try {
        const [type, indexes, served] = expectations[layout];
        const stored = { type: await columnType(db), indexes: await hnswIndexCount(db) };
        // A start in the other layout refuses the store, naming the step, and changes nothing.
        await expect(prepareDatabase(db)).rejects.toThrow(`engram migrate --vector-layout ${layout}`);
        expect({ type: await columnType(db), indexes: await hnswIndexCount(db) }).toEqual(stored);
        const prepared = await prepareDatabase(db, { convertLayout: true });
        expect(prepared.embeddings).toMatchObject({ column: type, rows: texts.length, indexes: 1 });
        expect(await columnType(db)).toBe(type);
        expect(await hnswIndexCount(db)).toBe(indexes);
        // Vectors stored before the conversion, and new ones enriched after it, are found.
        const fresh = `golf hotel ${step}`;
        await write(app, [fresh]);
        await enrichAll(db, ws.id);
        texts = [...texts, fresh];
        for (const text of texts) {
          const body = await vectorSearch(app, text);
          expect(body.backend[0].layout).toBe(served);
          expect(body.hits[0].text).toBe(text);
        }
        expect((await prepareDatabase(db)).embeddings).toBeUndefined();
      } finally {
        await app.close();
        await db.close();
      }
    }
  });
});
