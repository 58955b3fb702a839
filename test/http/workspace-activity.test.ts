// GET /workspace/activity (docs/api.md "GET /workspace/activity"): records written per UTC day
// over the last days, every day listed oldest first with 0 where nothing was written, derived
// ones counted apart; another workspace's rows and _system audits never counted; bad days is 422.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.js";

const DAY_MS = 86_400_000;
const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

describe("GET /workspace/activity", () => {
  let t: TestApp;
  let a: Awaited<ReturnType<TestApp["workspace"]>>;
  let b: Awaited<ReturnType<TestApp["workspace"]>>;

  beforeAll(async () => {
    t = await createTestApp();
    a = await t.workspace("busy");
    b = await t.workspace("neighbour");
    for (const ws of [a, b]) await t.publishExample(ws.headers);
    const note = (text: string, extra: object = {}) => ({
      collection: "learning_signals",
      entity: "acme",
      type: "note",
      text,
      ...extra,
    });
    const [first, old] = await t.writeRecords(a.headers, [note("today"), note("three days ago")]);
    await t.writeRecords(a.headers, [note("derived today", { derived_from: [first] })]);
    await t.writeRecords(b.headers, [note("not A's"), note("not A's either")]);
    // Written three days ago, as far as the day count can tell.
    await t.db.query(
      "UPDATE records SET created_at = now() - interval '3 days' WHERE workspace_id = $1 AND id = $2",
      [a.id, old],
    );
    // An erasure's audit is a _system record: not activity.
    const erased = await t.app.inject({
      method: "POST",
      url: "/erase",
      headers: a.headers,
      payload: { entity: "nobody" },
    });
    expect(erased.statusCode, erased.body).toBe(200);
  });
  afterAll(() => t.close());

  it("lists every day of the window, today last, with the records written and derived", async () => {
    const res = await t.app.inject({ url: "/workspace/activity?days=7", headers: a.headers });
    expect(res.statusCode, res.body).toBe(200);
    const { days } = res.json() as { days: { day: string; records: number; derived: number }[] };
    const now = Date.now();
    expect(days.map((d) => d.day)).toEqual(
      Array.from({ length: 7 }, (_, i) => utcDay(now - (6 - i) * DAY_MS)),
    );
    expect(days[6]).toEqual({ day: utcDay(now), records: 2, derived: 1 });
    expect(days[3]).toEqual({ day: utcDay(now - 3 * DAY_MS), records: 1, derived: 0 });
    expect(days.reduce((n, d) => n + d.records, 0)).toBe(3);
  });

  it("defaults to 30 days; refuses a window outside 1 to 90 days", async () => {
    const res = await t.app.inject({ url: "/workspace/activity", headers: b.headers });
    expect(res.json().days).toHaveLength(30);
    expect(res.json().days.at(-1)).toMatchObject({ records: 2, derived: 0 });
    for (const days of ["0", "91", "week"]) {
      const bad = await t.app.inject({ url: `/workspace/activity?days=${days}`, headers: a.headers });
      expect(bad.statusCode, days).toBe(422);
      expect(bad.json().code).toBe("request_schema");
    }
  });
});
