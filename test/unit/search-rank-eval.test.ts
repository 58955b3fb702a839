import { describe, expect, it } from "vitest";
import { rng as prng } from "../../bench/random.js";
import { DEFAULT_RANK_CONF } from "../../src/catalog/definition/rank.js";
import type { RankNode } from "../../src/catalog/index.js";
import { compileRank, evaluateRank, minMaxScores, orderByRank } from "../../src/search/rank-eval.js";
import type { Candidate } from "../../src/search/types.js";
import { candidate, hoursAgo, NOW } from "../support/candidates.js";

const one = (node: RankNode, c: Candidate = candidate()) => evaluateRank(node, [c], NOW)[0];

describe("evaluateRank: signals", () => {
  it("reads similarity, text_match and stored scores; a missing signal is 0", () => {
    const pool = [
      candidate({ similarity: 0.8, text_match: 2.5, scores: { importance: 0.7 } }),
      candidate({}),
    ];
    expect(evaluateRank(["similarity"], pool, NOW)).toEqual([0.8, 0]);
    expect(evaluateRank(["text_match"], pool, NOW)).toEqual([2.5, 0]);
    expect(evaluateRank(["score", "importance"], pool, NOW)).toEqual([0.7, 0]);
    expect(evaluateRank(["score", "other"], pool, NOW)).toEqual([0, 0]);
    // Not an own property: inherited names do not count.
    expect(evaluateRank(["score", "toString"], pool, NOW)).toEqual([0, 0]);
  });

  it("treats non-finite or non-numeric signals as missing, and numeric strings as numbers", () => {
    const bad = candidate({
      similarity: Number.NaN,
      text_match: "1.5" as unknown as number,
      scores: { s: "x" as unknown as number },
    });
    expect(one(["similarity"], bad)).toBe(0);
    expect(one(["text_match"], bad)).toBe(1.5);
    expect(one(["score", "s"], bad)).toBe(0);
  });

  it("measures age_hours from each timestamp; a future timestamp counts 0", () => {
    const c = candidate({ created_at: hoursAgo(10), occurred_at: hoursAgo(36), last_accessed: hoursAgo(2) });
    expect(one(["age_hours", "created_at"], c)).toBeCloseTo(10, 12);
    expect(one(["age_hours", "occurred_at"], c)).toBeCloseTo(36, 12);
    expect(one(["age_hours", "last_accessed"], c)).toBeCloseTo(2, 12);
    const future = candidate({ created_at: hoursAgo(-5), occurred_at: hoursAgo(-0.001), last_accessed: NOW });
    expect(one(["age_hours", "created_at"], future)).toBe(0);
    expect(one(["age_hours", "occurred_at"], future)).toBe(0);
    expect(one(["age_hours", "last_accessed"], future)).toBe(0);
  });

  it("counts a never-accessed record's last_accessed age from created_at", () => {
    const c = candidate({ created_at: hoursAgo(48), last_accessed: null });
    expect(one(["age_hours", "last_accessed"], c)).toBeCloseTo(48, 12);
  });

  it("treats an unreadable timestamp as a missing signal (0)", () => {
    const c = candidate({ created_at: new Date(Number.NaN) });
    expect(one(["age_hours", "created_at"], c)).toBe(0);
  });
});

describe("evaluateRank: operators", () => {
  it("const, sum, max and product", () => {
    const c = candidate({ similarity: 0.5, text_match: 3 });
    expect(one(["const", 2.5], c)).toBe(2.5);
    expect(one(["sum", [["similarity"], ["text_match"], ["const", -1]]], c)).toBe(2.5);
    expect(one(["max", [["similarity"], ["text_match"], ["const", -1]]], c)).toBe(3);
    expect(
      one(
        [
          "max",
          [
            ["const", -4],
            ["const", -2],
          ],
        ],
        c,
      ),
    ).toBe(-2);
    expect(one(["product", -2, ["text_match"]], c)).toBe(-6);
    expect(one(["product", 0.5, ["similarity"]], c)).toBe(0.25);
  });

  it("normalize: (x - min) / (max - min) across the pool", () => {
    const pool = [1, 3, 2, 5].map((t) => candidate({ text_match: t }));
    expect(evaluateRank(["normalize", ["text_match"]], pool, NOW)).toEqual([0, 0.5, 0.25, 1]);
  });

  it("normalize: all ties become 0, and a pool of one is a tie", () => {
    const pool = [0.4, 0.4, 0.4].map((s) => candidate({ similarity: s }));
    expect(evaluateRank(["normalize", ["similarity"]], pool, NOW)).toEqual([0, 0, 0]);
    expect(one(["normalize", ["const", 7]])).toBe(0);
    expect(evaluateRank(["normalize", ["similarity"]], [], NOW)).toEqual([]);
  });

  it("normalize is a pool-level pass: nested normalize and normalize of a sum work", () => {
    const pool = [0, 1, 4].map((t) => candidate({ text_match: t }));
    // inner normalize: [0, .25, 1]; product 4: [0, 1, 4]; plus const 1: [1, 2, 5]; outer: [0, .25, 1]
    const nested: RankNode = [
      "normalize",
      [
        "sum",
        [
          ["product", 4, ["normalize", ["text_match"]]],
          ["const", 1],
        ],
      ],
    ];
    expect(evaluateRank(nested, pool, NOW)).toEqual([0, 0.25, 1]);
    // the same expression inside a sum with a per-candidate signal
    const both: RankNode = [
      "sum",
      [
        ["normalize", ["text_match"]],
        ["normalize", ["normalize", ["text_match"]]],
      ],
    ];
    expect(evaluateRank(both, pool, NOW)).toEqual([0, 0.5, 2]);
  });

  it("saturate: x^e / (x^e + m^e), input clamped at 0", () => {
    const sat = (x: number, midpoint: number, exponent: number) =>
      one(["saturate", ["const", x], { midpoint, exponent }]);
    expect(sat(10, 10, 1)).toBe(0.5);
    expect(sat(10, 10, 3)).toBe(0.5);
    expect(sat(2, 1, 2)).toBeCloseTo(0.8, 15);
    expect(sat(1, 2, 2)).toBeCloseTo(0.2, 15);
    expect(sat(3, 1, 1)).toBeCloseTo(0.75, 15);
    expect(sat(0, 5, 2)).toBe(0);
    expect(sat(-3, 5, 2)).toBe(0);
    expect(sat(1e300, 1, 4)).toBe(1);
    expect(sat(1e-300, 1, 4)).toBe(0);
  });

  it("decay: 1 / (1 + x^e / m^e), input clamped at 0", () => {
    const dec = (x: number, midpoint: number, exponent: number) =>
      one(["decay", ["const", x], { midpoint, exponent }]);
    expect(dec(24, 24, 1)).toBe(0.5);
    expect(dec(48, 24, 1)).toBeCloseTo(1 / 3, 15);
    expect(dec(2, 1, 2)).toBeCloseTo(0.2, 15);
    expect(dec(0.5, 1, 0.5)).toBeCloseTo(1 / (1 + Math.SQRT1_2), 15);
    expect(dec(0, 24, 1)).toBe(1);
    expect(dec(-10, 24, 1)).toBe(1);
    expect(dec(1e300, 1, 4)).toBe(0);
  });

  it("decay of age_hours: a future timestamp decays nothing", () => {
    const c = candidate({ last_accessed: hoursAgo(-100), created_at: hoursAgo(24) });
    expect(one(["decay", ["age_hours", "last_accessed"], { midpoint: 24, exponent: 1 }], c)).toBe(1);
    expect(one(["decay", ["age_hours", "created_at"], { midpoint: 24, exponent: 1 }], c)).toBeCloseTo(
      0.5,
      12,
    );
  });

  it("always returns finite numbers", () => {
    const big: RankNode = ["product", 1e308, ["product", 1e308, ["const", 1e308]]];
    expect(one(big)).toBe(Number.MAX_VALUE);
    expect(one(["product", -1e308, ["const", 1e308]])).toBe(-Number.MAX_VALUE);
    const cancel: RankNode = ["sum", [big, ["product", -1, big]]];
    expect(Number.isFinite(one(cancel))).toBe(true);
    const pool = [candidate(), candidate(), candidate()];
    const spread: RankNode = [
      "normalize",
      [
        "sum",
        [
          ["product", 1e308, ["score", "a"]],
          ["product", -1e308, ["score", "b"]],
        ],
      ],
    ];
    pool[0] = candidate({ scores: { a: 10 } });
    pool[1] = candidate({ scores: { b: 10 } });
    expect(evaluateRank(spread, pool, NOW)).toEqual([1, 0, 0.5]);
  });

  it("compiles once per node and evaluates 1000 candidates well under 10 ms", () => {
    const formula = DEFAULT_RANK_CONF.formulas.hybrid;
    expect(compileRank(formula)).toBe(compileRank(formula));
    const rand = prng(7);
    const pool = Array.from({ length: 1000 }, () =>
      candidate({ similarity: rand(), text_match: rand() * 3, last_accessed: hoursAgo(rand() * 500) }),
    );
    evaluateRank(formula, pool, NOW);
    const runs = 50;
    const start = performance.now();
    for (let i = 0; i < runs; i++) evaluateRank(formula, pool, NOW);
    const perRun = (performance.now() - start) / runs;
    expect(perRun).toBeLessThan(10);
  });
});

describe("default formulas", () => {
  function randomPool(seed: number, size: number): Candidate[] {
    const rand = prng(seed);
    return Array.from({ length: size }, () => {
      const maybe = <T>(v: T): T | undefined => (rand() < 0.2 ? undefined : v);
      const at = () => hoursAgo(rand() < 0.1 ? -rand() * 100 : rand() * 2000);
      return candidate({
        similarity: maybe(rand() * 2 - 1),
        text_match: maybe(rand() * 10),
        created_at: at(),
        occurred_at: at(),
        last_accessed: rand() < 0.3 ? null : at(),
      });
    });
  }

  it("hybrid, vector and text evaluate in [0, 2]; recent in [0, 1]", () => {
    const { formulas } = DEFAULT_RANK_CONF;
    const range = { hybrid: [2, 0], vector: [2, 0], text: [2, 0], recent: [1, 0] };
    for (let seed = 1; seed <= 40; seed++) {
      const pool = randomPool(seed, 1 + (seed % 7) * 30);
      for (const mode of ["hybrid", "vector", "text", "recent"] as const) {
        const seen = range[mode];
        for (const v of evaluateRank(formulas[mode], pool, NOW)) {
          seen[0] = Math.min(seen[0] as number, v);
          seen[1] = Math.max(seen[1] as number, v);
        }
      }
    }
    for (const mode of ["hybrid", "vector", "text"] as const) {
      expect(range[mode][0]).toBeGreaterThanOrEqual(0);
      expect(range[mode][1]).toBeLessThanOrEqual(2);
      expect(range[mode][1]).toBeGreaterThan(1.5); // the range is actually used
    }
    expect(range.recent[0]).toBeGreaterThanOrEqual(0);
    expect(range.recent[1]).toBeLessThanOrEqual(1);
  });

  it("hybrid: normalize(max(similarity, text_match)) plus a day-midpoint decay of last access", () => {
    const pool = [
      candidate({ similarity: 0.9, text_match: 0.1, last_accessed: NOW }),
      candidate({ similarity: 0.2, text_match: 0.5, last_accessed: hoursAgo(24) }),
      candidate({ similarity: 0.1, created_at: hoursAgo(72), last_accessed: null }),
    ];
    const v = evaluateRank(DEFAULT_RANK_CONF.formulas.hybrid, pool, NOW);
    expect(v[0]).toBeCloseTo(1 + 1, 12);
    expect(v[1]).toBeCloseTo(0.5 + 0.5, 12);
    expect(v[2]).toBeCloseTo(0 + 0.25, 12);
  });

  it("recent: decay of age(occurred_at)", () => {
    const pool = [candidate({ occurred_at: hoursAgo(24) }), candidate({ occurred_at: NOW })];
    expect(evaluateRank(DEFAULT_RANK_CONF.formulas.recent, pool, NOW)).toEqual([0.5, 1]);
  });
});

describe("minMaxScores", () => {
  it("projects onto [0, 1] with the top at exactly 1.0", () => {
    expect(minMaxScores([2, 4, 3, 6])).toEqual([0, 0.5, 0.25, 1]);
    const rand = prng(3);
    for (let t = 0; t < 100; t++) {
      const values = Array.from(
        { length: 2 + Math.floor(rand() * 50) },
        () => (rand() - 0.5) * 10 ** (rand() * 6),
      );
      const scores = minMaxScores(values);
      const top = values.indexOf(Math.max(...values));
      expect(scores[top]).toBe(1);
      expect(Math.max(...scores)).toBe(1);
      for (const s of scores) {
        expect(s).toBeGreaterThanOrEqual(0);
        expect(s).toBeLessThanOrEqual(1);
      }
    }
  });

  it("scores every tie 1.0, including a single value", () => {
    expect(minMaxScores([0.3, 0.3, 0.3])).toEqual([1, 1, 1]);
    expect(minMaxScores([-5])).toEqual([1]);
    expect(minMaxScores([])).toEqual([]);
  });

  it("ties at the top all score 1.0", () => {
    expect(minMaxScores([1, 5, 5, 3])).toEqual([0, 1, 1, 0.5]);
  });

  it("stays finite at extreme spreads", () => {
    expect(minMaxScores([Number.MAX_VALUE, -Number.MAX_VALUE, 0])).toEqual([1, 0, 0.5]);
  });
});

describe("orderByRank", () => {
  it("orders by value, then newer seq, then id", () => {
    const pool = [
      candidate({ id: "b", seq: 5 }),
      candidate({ id: "a", seq: 5 }),
      candidate({ id: "c", seq: 9 }),
      candidate({ id: "d", seq: 1 }),
    ];
    expect(orderByRank(pool, [1, 1, 1, 2])).toEqual([3, 2, 1, 0]);
  });

  it("does not depend on the pool's order", () => {
    const rand = prng(11);
    const pool = Array.from({ length: 60 }, (_, i) =>
      candidate({ id: `id-${i % 13}-${i}`, seq: Math.floor(rand() * 5) }),
    );
    const values = pool.map(() => Math.floor(rand() * 3));
    const order = orderByRank(pool, values).map((i) => pool[i]?.id);
    const perm = pool.map((_, i) => i).sort(() => rand() - 0.5);
    const shuffled = perm.map((i) => pool[i] as Candidate);
    const shuffledValues = perm.map((i) => values[i] as number);
    expect(orderByRank(shuffled, shuffledValues).map((i) => shuffled[i]?.id)).toEqual(order);
  });

  it("refuses values that do not match the pool", () => {
    expect(() => orderByRank([candidate()], [])).toThrow(RangeError);
  });
});
