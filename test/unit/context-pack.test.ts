import { describe, expect, it } from "vitest";
import { type ComponentRows, dedupe, packComponents } from "../../src/context/pack.js";
import { countRenderTokens, type RowRecord } from "../../src/search/prompt-rows.js";

function rows(prefix: string, n: number, words = 20): RowRecord[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `${prefix}${String(i).padStart(4, "0")}`,
    occurred_at: new Date(Date.UTC(2026, 0, 1, 0, i)),
    collection: "notes",
    type: "note",
    key: null,
    scores: {},
    text: `${prefix} row ${i} ${"word ".repeat(words)}`,
  }));
}

const pack = (components: ComponentRows[], budget: number) =>
  packComponents(components, { budget, displayScores: [] });

describe("context packing", () => {
  it("keeps a record only in the first component that holds it", () => {
    const shared = rows("s", 2);
    const out = dedupe([
      { name: "state", rows: shared },
      { name: "recent", rows: [...rows("r", 1), ...shared] },
      { name: "delta", rows: shared },
    ]);
    expect(out.map((c) => c.rows.map((r) => r.id))).toEqual([["s0000", "s0001"], ["r0000"], []]);
  });

  it("holds each component to its cumulative share while all are full", () => {
    const budget = 1000;
    const out = pack(
      [
        { name: "state", rows: rows("a", 100) },
        { name: "relevant", rows: rows("b", 100) },
        { name: "recent", rows: rows("c", 100) },
      ],
      budget,
    );
    const [state, relevant, recent] = out.components.map((c) => c.tokens) as [number, number, number];
    expect(state).toBeLessThanOrEqual(400);
    expect(state).toBeGreaterThan(300);
    expect(state + relevant).toBeLessThanOrEqual(750);
    expect(relevant).toBeGreaterThan(250);
    expect(recent).toBeGreaterThan(150);
    expect(out.tokens).toBeLessThanOrEqual(budget);
    expect(out.tokens).toBe(countRenderTokens(out.rendered));
    expect(out.truncated).toBe(true);
  });

  it("passes an unused share on to the next component", () => {
    const out = pack(
      [
        { name: "state", rows: [] },
        { name: "recent", rows: rows("c", 100) },
      ],
      1000,
    );
    expect(out.components[1]?.tokens).toBeGreaterThan(900);
  });

  it("splits recent's share with delta", () => {
    const out = pack(
      [
        { name: "state", rows: rows("a", 100) },
        { name: "relevant", rows: rows("b", 100) },
        { name: "recent", rows: rows("c", 100) },
        { name: "delta", rows: rows("d", 100) },
      ],
      2000,
    );
    const [, , recent, delta] = out.components.map((c) => c.tokens) as number[];
    expect(recent).toBeLessThanOrEqual(2000 * 0.125 + 60);
    expect(delta).toBeGreaterThan(150);
    expect(out.tokens).toBeLessThanOrEqual(2000);
  });

  it("fits the fence first: too small a budget renders nothing", () => {
    const out = packComponents([{ name: "state", rows: rows("a", 3) }], {
      budget: 4,
      fence: { tag: "memory" },
      displayScores: [],
    });
    expect(out).toMatchObject({ rendered: "", tokens: 0, truncated: true, input_record_ids: [] });
  });
});
