// One tenant's publish does not stall another's writes (docs/operations.md, "Field indexes"):
// workspace B publishes the most indexed fields a catalog may declare (MAX_INDEXED_FIELDS, all
// sorted: two indexes each) over a records table of 10,000 rows while workspace A writes single
// rows, and A's p99 stays within 2x of its p99 alone. Building them in the publish transaction
// held a ShareLock on records that stopped A's writes for the whole build (1.3 s here). On a
// server the indexes are built CONCURRENTLY after the install commits. Embedded storage's one
// connection builds them one statement at a time and A's writes take turns between them: there
// the test asserts that they do (a write waits about one build, never the whole publish).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp, testConfig } from "../support/app.js";
import { fieldsCollectionsYaml, minimalFiles } from "../support/catalog-files.js";
import { percentile } from "../support/latency.js";

const ROWS = 10_000;
const FIELDS = testConfig().maxIndexedFields;
/** A's writers, each writing one row at a time: more samples, so that p99 is not the maximum. */
const WRITERS = 2;
/**
 * A p99 this small is noise on a loaded machine (the suite's other files share its cores): the
 * bound is 2x this at least, still a quarter of the 1.3 s the old in-transaction build stalled.
 */
const FLOOR_MS = 150;

function collections(name: string, fields: string[]) {
  return fieldsCollectionsYaml(name, Object.fromEntries(fields.map((f) => [f, "type: integer, sort: true"])));
}

const catalog = (name: string, fields: string[]) => ({
  package: "demo-pack@1.0.0",
  files: minimalFiles({
    "collections/main.yaml": collections(name, fields),
    "packages/demo-pack.yaml": `name: demo-pack\nversion: 1.0.0\ncollections: [${name}@1, facts@1]\nsearch_profiles: [main]\n`,
  }),
});

const summary = (ms: number[]) =>
  `n=${ms.length} p50=${percentile(ms, 50).toFixed(1)} p99=${percentile(ms, 99).toFixed(1)} max=${Math.max(...ms).toFixed(1)} ms`;

describe("a publish of the most indexed fields beside another workspace's writes", () => {
  let t: TestApp;
  let a: Awaited<ReturnType<TestApp["workspace"]>>;
  let b: Awaited<ReturnType<TestApp["workspace"]>>;
  let n = 0;

  /** One single-row write of A; its latency in ms. */
  async function writeA(): Promise<number> {
    const started = performance.now();
    const res = await t.app.inject({
      method: "POST",
      url: "/records",
      headers: a.headers,
      payload: {
        records: [{ collection: "notes", entity: "a", type: "note", text: `w${n++}`, content: {} }],
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    return performance.now() - started;
  }

  beforeAll(async () => {
    t = await createTestApp();
    a = await t.workspace("stall-a");
    b = await t.workspace("stall-b");
    const res = await t.app.inject({
      method: "POST",
      url: "/catalog",
      headers: a.headers,
      payload: catalog("notes", []),
    });
    expect(res.statusCode, res.body).toBe(200);
    for (let i = 0; i < ROWS; i += 1000) {
      const records = Array.from({ length: 1000 }, (_, j) => ({
        collection: "notes",
        entity: `e${(i + j) % 100}`,
        type: "note",
        text: `row ${i + j}`,
        content: { v: i + j },
      }));
      const write = await t.app.inject({
        method: "POST",
        url: "/records",
        headers: a.headers,
        payload: { records },
      });
      expect(write.statusCode, write.body).toBe(200);
    }
    await t.db.query("ANALYZE records");
  }, 300_000);
  afterAll(() => t.close());

  it("keeps A's single-row write p99 within 2x of its p99 alone", async () => {
    for (let i = 0; i < 10; i++) await writeA(); // warm
    const alone: number[] = [];
    await Promise.all(
      Array.from({ length: WRITERS }, async () => {
        for (let i = 0; i < 150; i++) alone.push(await writeA());
      }),
    );

    const fields = Array.from({ length: FIELDS }, (_, i) => `f${i}`);
    const during: number[] = [];
    let done = false;
    const started = performance.now();
    const publish = t.app
      .inject({ method: "POST", url: "/catalog", headers: b.headers, payload: catalog("logs", fields) })
      .finally(() => {
        done = true;
      });
    await Promise.all(
      Array.from({ length: WRITERS }, async () => {
        while (!done) during.push(await writeA());
      }),
    );
    const published = await publish;
    const publishMs = performance.now() - started;
    expect(published.statusCode, published.body).toBe(200);

    const { rows } = await t.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_indexes WHERE tablename = 'records' AND indexdef LIKE '%''logs''%'",
    );
    expect(rows[0]?.n).toBe(2 * FIELDS);
    const p99Alone = percentile(alone, 99);
    const p99During = percentile(during, 99);
    console.log(
      `[field-index stall] ${t.db.kind}, ${ROWS} rows, ${2 * FIELDS} indexes built in ${publishMs.toFixed(0)} ms;` +
        ` A alone ${summary(alone)}; A during B's publish ${summary(during)}`,
    );
    if (t.db.kind === "postgres") {
      expect(during.length).toBeGreaterThanOrEqual(5);
      expect(p99During).toBeLessThanOrEqual(2 * Math.max(p99Alone, FLOOR_MS));
    } else {
      // One connection: A's writes take turns with the builds, one index at a time.
      expect(during.length).toBeGreaterThanOrEqual(FIELDS);
      // Half the publish: the old build in the publish transaction held every write for all of it;
      // the suite's other files share the two cores, so a single statement can run long.
      expect(p99During).toBeLessThan(publishMs / 2);
    }
  }, 300_000);
});
