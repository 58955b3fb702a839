// Retention policies on a clock the test controls: tombstoned slots older than after_days are
// erased on the policy's cron tick, at most max_pages pages of 100 slots, only the latest missed
// tick runs, and a later live successor keeps a slot.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runRetention } from "../../src/retention/index.js";
import { MINIMAL_PACKAGE, minimalFiles, PACKAGE_YAML } from "../support/catalog-files.js";
import { derivationHarness, type Harness } from "../support/derivations.js";

const DAY = 86_400_000;
const SLOTS = 101;

describe("retention", () => {
  let h: Harness;
  let t0: number;
  let firstSlot: { value: string; tombstone: string };
  let live: string[];
  const run = (days: number) => runRetention(h.t.db, { maxRecords: 100_000, now: new Date(t0 + days * DAY) });
  const audits = async () =>
    (await h.get("/timeline?include_system=true&collections=_system&types=retention&limit=100")).json()
      .records;
  const remainingSlots = async () =>
    (
      await h.t.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM heads WHERE workspace_id = $1 AND collection = 'facts' AND tombstone",
        [h.ws.id],
      )
    ).rows[0]?.n;

  beforeAll(async () => {
    h = await derivationHarness(
      "retention",
      minimalFiles({
        "packages/demo-pack.yaml": `${PACKAGE_YAML}retentions:
  - { name: old_facts, collection: facts@1, after_days: 30, cron: "0 3 * * *", max_pages: 1 }
`,
      }),
    );
    expect(MINIMAL_PACKAGE).toBe("demo-pack@1.0.0");
    const fact = (key: string, text: string, extra: object = {}) => ({
      collection: "facts",
      entity: "r1",
      type: "fact",
      key,
      text,
      ...extra,
    });
    const keys = Array.from({ length: SLOTS }, (_, i) => `k${String(i).padStart(3, "0")}`);
    const values = await h.write(keys.map((key) => fact(key, `Secret value of ${key}`)));
    const tombstones = await h.write(keys.map((key) => fact(key, "", { tombstone: true })));
    firstSlot = { value: values[0] as string, tombstone: tombstones[0] as string };
    // A slot retracted and then written again: live, never eligible.
    live = await h.write([fact("live", "First value")]);
    live.push(...(await h.write([fact("live", "", { tombstone: true })])));
    live.push(...(await h.write([fact("live", "Back again")])));
    // The next 12:00 UTC: the policy's 03:00 ticks then fall between whole days of the test's
    // clock, never inside a fraction of one (a wall-clock t0 made day 45.1 cross a tick at night).
    t0 = Math.ceil((Date.now() - 12 * 3_600_000) / DAY) * DAY + 12 * 3_600_000;
  });
  afterAll(() => h.close());

  it("records the policy's latest tick on first sight without running it", async () => {
    expect(await run(20)).toBe(0);
    expect(await audits()).toEqual([]);
  });

  it("runs a tick but keeps tombstones younger than after_days", async () => {
    expect(await run(25)).toBe(0);
    expect(await remainingSlots()).toBe(SLOTS);
    const { rows } = await h.t.db.query<{ last_tick: Date }>(
      "SELECT last_tick FROM trigger_ticks WHERE workspace_id = $1 AND trigger = 'retention:old_facts'",
      [h.ws.id],
    );
    expect(rows[0]?.last_tick.getTime()).toBeGreaterThan(t0 + 24 * DAY);
  });

  it("runs only the latest missed tick, erasing at most max_pages pages of 100 slots", async () => {
    // Twenty daily ticks passed since day 25: one run, one page.
    expect(await run(45)).toBe(100);
    expect(await remainingSlots()).toBe(SLOTS - 100);
    const [audit] = await audits();
    expect(audit).toBeDefined();
    const record = (await h.get(`/records/${audit.id}`)).json();
    expect(record).toMatchObject({ collection: "_system", type: "retention", entity: "workspace" });
    expect(record.content).toMatchObject({
      policy: "old_facts",
      collection: "facts@1",
      after_days: 30,
      page: 1,
      slots: 100,
      deleted: 200,
    });
    expect(JSON.stringify(record)).not.toContain("Secret value");
    expect(JSON.stringify(record)).not.toContain("r1");
    // The whole slot goes: its history and its tombstone.
    for (const id of [firstSlot.value, firstSlot.tombstone]) {
      expect((await h.get(`/records/${id}`)).statusCode).toBe(404);
    }
    const history = (await h.get("/document/history?entity=r1&collection=facts&key=k000")).json();
    expect(history.versions).toEqual([]);
    // The same tick does not run twice.
    expect(await run(45.1)).toBe(0);
  });

  it("erases the rest on the next tick and never touches a slot with a live successor", async () => {
    expect(await run(46)).toBe(1);
    expect(await remainingSlots()).toBe(0);
    for (const id of live) expect((await h.get(`/records/${id}`)).statusCode).toBe(200);
    const doc = (await h.get("/document?entity=r1")).json();
    expect(doc.beliefs.map((b: { key: string }) => b.key)).toEqual(["live"]);
    expect(await audits()).toHaveLength(2);
    // Nothing eligible: a tick writes no audit.
    expect(await run(47)).toBe(0);
    expect(await audits()).toHaveLength(2);
  });
});
