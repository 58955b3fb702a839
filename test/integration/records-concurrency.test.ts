import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.js";

// Several writers race while a consumer tails /delta with /cursor. On the server the writers
// run on separate pooled connections, so this exercises the seq/commit-order rule for real.
const WRITERS = 4;
const BATCHES = 15;
const ROWS = 8;
const KEYS = ["plan", "phone", "email"];

describe("concurrent writers and a replay consumer", () => {
  let t: TestApp;
  let headers: { authorization: string };

  beforeAll(async () => {
    t = await createTestApp();
    ({ headers } = await t.workspace("concurrency"));
    await t.publishExample(headers);
  });
  afterAll(() => t.close());

  it("delivers every row exactly once in ascending seq, and heads end on the newest rows", async () => {
    const written: string[] = [];
    let writing = true;

    const writer = async (w: number) => {
      for (let b = 0; b < BATCHES; b++) {
        const records = Array.from({ length: ROWS }, (_, r) =>
          r % 2 === 0
            ? { collection: "learning_signals", entity: `e${r % 3}`, type: "note", text: `w${w} b${b} r${r}` }
            : {
                collection: "customer_facts",
                entity: `e${r % 3}`,
                type: "fact",
                key: KEYS[(w + b + r) % KEYS.length],
                text: `w${w} b${b} r${r}`,
                content: { value: `w${w}b${b}r${r}` },
              },
        );
        const res = await t.app.inject({ method: "POST", url: "/records", headers, payload: { records } });
        expect(res.statusCode, res.body).toBe(200);
        written.push(...res.json().inserted.map((i: any) => i.id));
      }
    };

    const seen: { id: string; seq: number }[] = [];
    const consumer = async () => {
      for (;;) {
        const done = !writing;
        const page = (await t.app.inject({ url: "/delta?consumer=tail&limit=25", headers })).json();
        seen.push(...page.records.map((r: any) => ({ id: r.id, seq: r.seq })));
        if (page.records.length > 0) {
          const moved = await t.app.inject({
            method: "POST",
            url: "/cursor",
            headers,
            payload: { consumer: "tail", position: page.next_cursor, scope_hash: page.scope_hash },
          });
          expect(moved.statusCode, moved.body).toBe(200);
        } else if (done) {
          return;
        } else {
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      }
    };

    const tail = consumer();
    await Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));
    writing = false;
    await tail;

    expect(written).toHaveLength(WRITERS * BATCHES * ROWS);
    const ids = seen.map((s) => s.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual([...written].sort());
    for (let i = 1; i < seen.length; i++) expect(seen[i]?.seq).toBeGreaterThan(seen[i - 1]?.seq as number);

    // Every keyed head is the slot's newest row (highest seq).
    for (const entity of ["e0", "e1", "e2"]) {
      const doc = (await t.app.inject({ url: `/document?entity=${entity}`, headers })).json();
      for (const belief of doc.beliefs) {
        const history = (
          await t.app.inject({
            url: `/document/history?entity=${entity}&collection=customer_facts&key=${belief.key}&limit=1`,
            headers,
          })
        ).json();
        expect(belief.id).toBe(history.versions[0].id);
      }
    }
  });
});
