// The bodies of shown records (src/search/bodies.ts): read after ranking for the first `count`
// of the pool, in the caller's workspace; a record gone since it was proposed leaves the pool and
// the next one takes its place.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readBodies, shown } from "../../src/search/bodies.js";
import type { Candidate } from "../../src/search/types.js";
import { createTestApp, type TestApp } from "../support/app.js";

const scored = (id: string, rank_score: number) => ({ candidate: { id } as Candidate, rank_score });

describe("search bodies", () => {
  let t: TestApp;
  let workspaceId: string;
  let ids: string[];
  let elsewhere: string;

  beforeAll(async () => {
    t = await createTestApp();
    const mine = await t.workspace("bodies");
    const other = await t.workspace("bodies-other");
    await t.publishExample(mine.headers);
    await t.publishExample(other.headers);
    workspaceId = mine.id;
    const event = (n: number) => ({
      collection: "customer_events",
      entity: "acme",
      type: "ticket",
      text: `ticket number ${n}`,
      content: { priority: n },
    });
    ids = await t.writeRecords(mine.headers, [event(1), event(2), event(3)]);
    [elsewhere] = (await t.writeRecords(other.headers, [event(4)])) as [string];
  });
  afterAll(() => t.close());

  it("reads the text, content and annotations of the first count records only", async () => {
    const [a, b, c] = ids as [string, string, string];
    const pool = [scored(a, 3), scored(b, 2), scored(c, 1)];
    const read = await readBodies(t.db, { workspaceId, ranked: pool, count: 2 });
    expect(read.ranked).toEqual(pool);
    expect([...read.bodies.keys()].sort()).toEqual([a, b].sort());
    expect(shown(read.bodies, { id: b } as Candidate)).toEqual({
      id: b,
      text: "ticket number 2",
      content: { priority: 2 },
      annotations: {},
    });
    expect(() => shown(read.bodies, { id: c } as Candidate)).toThrow(/no body read/);
  });

  it("drops records that are gone (or another workspace's) and reads the next ones in their place", async () => {
    const [a, b, c] = ids as [string, string, string];
    const gone = randomUUID();
    const pool = [scored(a, 5), scored(gone, 4), scored(elsewhere, 3), scored(b, 2), scored(c, 1)];
    const read = await readBodies(t.db, { workspaceId, ranked: pool, count: 3 });
    expect(read.ranked.map((r) => r.candidate.id)).toEqual([a, b, c]);
    expect([...read.bodies.keys()].sort()).toEqual([a, b, c].sort());
    expect(read.bodies.get(c)?.text).toBe("ticket number 3");
  });

  it("reads nothing for an empty window", async () => {
    const read = await readBodies(t.db, { workspaceId, ranked: [scored(randomUUID(), 1)], count: 0 });
    expect(read.ranked).toHaveLength(1);
    expect(read.bodies.size).toBe(0);
  });
});
