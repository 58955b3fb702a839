import { describe, expect, it } from "vitest";
import { rng as prng } from "../../bench/random.js";
import {
  applyBoost,
  type FusedHit,
  fuseRrf,
  type RankedSource,
  sweepingSources,
} from "../../src/search/fusion.js";

const int = (rand: () => number, lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));

function shuffle<T>(rand: () => number, items: T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

interface Generated {
  sources: (RankedSource & { k: number })[];
  rankConstant: number;
}

/** 1..8 sources over a shared universe of ids, each ranked and cut to its k (rule 6). */
function generate(rand: () => number): Generated {
  const universe = Array.from({ length: int(rand, 1, 120) }, (_, i) => `r${i}`);
  const count = int(rand, 1, 8);
  const sources = Array.from({ length: count }, (_, s) => {
    const k = int(rand, 1, 100);
    const ids = shuffle(rand, universe).slice(0, Math.min(k, int(rand, 0, universe.length)));
    const weight = rand() < 0.2 ? 1 : Math.max(1e-3, Math.round(rand() * 100_000) / 1000);
    return { name: `s${s}`, weight, k, ids };
  });
  return { sources, rankConstant: int(rand, 1, 1000) };
}

const byId = (hits: FusedHit[]) => new Map(hits.map((h) => [h.id, h]));

describe("fuseRrf", () => {
  it("rule 7: sums weight / (rank_constant + rank) over the sources that found the record", () => {
    const hits = fuseRrf(
      [
        { name: "semantic", weight: 1, ids: ["a", "b", "c"] },
        { name: "keyword", weight: 2, ids: ["c", "d"] },
      ],
      60,
    );
    const m = byId(hits);
    expect(m.get("a")).toEqual({ id: "a", rank_score: 1 / 61, source_ranks: { semantic: 1 } });
    expect(m.get("b")).toEqual({ id: "b", rank_score: 1 / 62, source_ranks: { semantic: 2 } });
    expect(m.get("c")).toEqual({
      id: "c",
      rank_score: 1 / 63 + 2 / 61,
      source_ranks: { semantic: 3, keyword: 1 },
    });
    expect(m.get("d")).toEqual({ id: "d", rank_score: 2 / 62, source_ranks: { keyword: 2 } });
    expect(hits.map((h) => h.id)).toEqual(["c", "d", "a", "b"]);
  });

  it("rule 7: a source that did not find a record contributes nothing and is omitted", () => {
    const hits = fuseRrf(
      [
        { name: "x", weight: 1, ids: ["a"] },
        { name: "y", weight: 5, ids: [] },
        { name: "z", weight: 1, ids: ["b"] },
      ],
      1,
    );
    expect(hits).toEqual([
      { id: "a", rank_score: 0.5, source_ranks: { x: 1 } },
      { id: "b", rank_score: 0.5, source_ranks: { z: 1 } },
    ]);
  });

  it("rule 7: fusion uses positions only, counting from 1", () => {
    const hits = fuseRrf([{ name: "only", weight: 3, ids: ["p", "q", "r"] }], 10);
    expect(hits.map((h) => [h.id, h.rank_score, h.source_ranks.only])).toEqual([
      ["p", 3 / 11, 1],
      ["q", 3 / 12, 2],
      ["r", 3 / 13, 3],
    ]);
  });

  it("rule 6: each source is already cut to its own k; fusion keeps every merged record", () => {
    const hits = fuseRrf(
      [
        { name: "a", weight: 1, ids: ["1", "2"] },
        { name: "b", weight: 1, ids: ["3", "4", "5", "6"] },
      ],
      60,
    );
    expect(hits).toHaveLength(6);
  });

  it("a repeated id within one source counts at its first position", () => {
    const hits = fuseRrf([{ name: "s", weight: 1, ids: ["a", "b", "a"] }], 60);
    expect(hits).toEqual([
      { id: "a", rank_score: 1 / 61, source_ranks: { s: 1 } },
      { id: "b", rank_score: 1 / 62, source_ranks: { s: 2 } },
    ]);
  });

  it("ties: best single-source rank, then the order of sources, then id", () => {
    // Exact ties (rank_constant 1, weight 2): n = 2/2 = 1 (rank 1 in a), y = 2/2 = 1 (rank 1 in
    // b), m = 2/4 + 2/4 = 1 (rank 3 in both); x = 2/3 (rank 2 in a), z = 2/3 (rank 2 in b).
    const hits = fuseRrf(
      [
        { name: "a", weight: 2, ids: ["n", "x", "m"] },
        { name: "b", weight: 2, ids: ["y", "z", "m"] },
      ],
      1,
    );
    expect(hits.map((h) => [h.id, h.rank_score])).toEqual([
      ["n", 1],
      ["y", 1],
      ["m", 1],
      ["x", 2 / 3],
      ["z", 2 / 3],
    ]);
    // Ids decide nothing while an earlier rule does: "b" before "a" as its best rank comes first.
    const bySource = fuseRrf(
      [
        { name: "first", weight: 1, ids: ["b", "a"] },
        { name: "second", weight: 1, ids: ["a", "b"] },
      ],
      60,
    );
    expect(bySource.map((h) => h.id)).toEqual(["b", "a"]);
  });

  it("is deterministic whatever the ids' insertion order", () => {
    const rand = prng(99);
    for (let t = 0; t < 50; t++) {
      const { sources, rankConstant } = generate(rand);
      const once = fuseRrf(sources, rankConstant);
      // identical inputs, rebuilt: identical output
      const again = fuseRrf(
        sources.map((s) => ({ ...s, ids: [...s.ids] })),
        rankConstant,
      );
      expect(again).toEqual(once);
      for (let i = 1; i < once.length; i++) {
        expect((once[i - 1] as FusedHit).rank_score).toBeGreaterThanOrEqual((once[i] as FusedHit).rank_score);
      }
    }
  });

  it("accepts any source name, even __proto__", () => {
    const [hit] = fuseRrf([{ name: "__proto__", weight: 1, ids: ["a"] }], 60);
    expect(Object.keys(hit?.source_ranks ?? {})).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(hit?.source_ranks)).toBe(Object.prototype);
  });

  it("refuses invalid input", () => {
    expect(() => fuseRrf([{ name: "a", weight: 0, ids: [] }], 60)).toThrow(RangeError);
    expect(() => fuseRrf([{ name: "a", weight: Number.NaN, ids: [] }], 60)).toThrow(RangeError);
    expect(() => fuseRrf([{ name: "a", weight: 1, ids: [] }], -1)).toThrow(RangeError);
    expect(() =>
      fuseRrf(
        [
          { name: "a", weight: 1, ids: [] },
          { name: "a", weight: 1, ids: [] },
        ],
        60,
      ),
    ).toThrow(RangeError);
  });
});

describe("fuseRrf: properties (seeded random sources, weights, rank constants)", () => {
  it("rank_score equals the sum of weight / (rank_constant + rank) over source_ranks", () => {
    const rand = prng(20250601);
    let checked = 0;
    for (let t = 0; t < 500; t++) {
      const { sources, rankConstant } = generate(rand);
      const hits = fuseRrf(sources, rankConstant);
      const found = new Set(sources.flatMap((s) => s.ids));
      expect(hits.length).toBe(found.size);
      const positions = sources.map((s) => new Map(s.ids.map((id, i) => [id, i + 1])));
      const weights = new Map(sources.map((s) => [s.name, s.weight]));
      for (const hit of hits) {
        let expected = 0;
        const expectedRanks: Record<string, number> = {};
        sources.forEach((source, i) => {
          const rank = positions[i]?.get(hit.id);
          if (rank === undefined) return;
          expectedRanks[source.name] = rank;
          expected += source.weight / (rankConstant + rank);
        });
        let fromRanks = 0;
        for (const [name, rank] of Object.entries(hit.source_ranks)) {
          fromRanks += (weights.get(name) ?? Number.NaN) / (rankConstant + rank);
        }
        if (
          hit.rank_score !== expected ||
          Math.abs(hit.rank_score - fromRanks) > 1e-12 * expected ||
          JSON.stringify(Object.entries(hit.source_ranks).sort()) !==
            JSON.stringify(Object.entries(expectedRanks).sort())
        ) {
          expect({ hit, expected, fromRanks, expectedRanks }).toBeUndefined();
        }
      }
      checked += hits.length;
    }
    expect(checked).toBeGreaterThan(10_000);
  });

  it("rule 9: above the weight ratio a source sweeps every record only the other found", () => {
    const rand = prng(424242);
    let sweepsChecked = 0;
    for (let t = 0; t < 500; t++) {
      const rankConstant = int(rand, 1, 1000);
      const kA = int(rand, 1, 100);
      const kB = int(rand, 1, 100);
      const threshold = (rankConstant + kA) / (rankConstant + 1);
      const wB = Math.max(0.01, rand() * 10);
      // A ratio strictly above the threshold (a relative margin keeps floating point honest).
      const wA = wB * threshold * (1 + 1e-9 + rand() * 2);
      // Records A and B share, and records only each one found; both filled to their k.
      const shared = Array.from({ length: int(rand, 0, Math.min(kA, kB)) }, (_, i) => `s${i}`);
      const onlyA = Array.from({ length: kA - shared.length }, (_, i) => `a${i}`);
      const onlyB = Array.from({ length: kB - shared.length }, (_, i) => `b${i}`);
      const sources = shuffle(rand, [
        { name: "A", weight: wA, k: kA, ids: shuffle(rand, [...shared, ...onlyA]) },
        { name: "B", weight: wB, k: kB, ids: shuffle(rand, [...shared, ...onlyB]) },
      ]);
      expect(sweepingSources(sources, rankConstant)).toContainEqual({
        source: "A",
        over: "B",
        ratio: wA / wB,
        threshold,
      });
      const hits = fuseRrf(sources, rankConstant);
      const position = new Map(hits.map((h, i) => [h.id, i]));
      const worstA = Math.max(-1, ...onlyA.map((id) => position.get(id) as number));
      const bestB = Math.min(hits.length, ...onlyB.map((id) => position.get(id) as number));
      expect(worstA).toBeLessThan(bestB);
      if (onlyA.length > 0 && onlyB.length > 0) sweepsChecked++;
    }
    expect(sweepsChecked).toBeGreaterThan(100);
  });

  it("rule 9: at or below the ratio, B's best exclusive record can beat A's worst", () => {
    const rankConstant = 60;
    const kA = 20;
    const threshold = (rankConstant + kA) / (rankConstant + 1);
    const sources = [
      { name: "A", weight: threshold * 0.99, k: kA, ids: Array.from({ length: kA }, (_, i) => `a${i}`) },
      { name: "B", weight: 1, k: 5, ids: ["b0", "b1", "b2", "b3", "b4"] },
    ];
    expect(sweepingSources(sources, rankConstant).some((s) => s.source === "A")).toBe(false);
    const order = fuseRrf(sources, rankConstant).map((h) => h.id);
    expect(order.indexOf("b0")).toBeLessThan(order.indexOf(`a${kA - 1}`));
  });
});

describe("sweepingSources", () => {
  it("reports every ordered pair whose weight ratio exceeds (rank_constant + k) / (rank_constant + 1)", () => {
    const sweeps = sweepingSources(
      [
        { name: "heavy", weight: 10, k: 20 },
        { name: "light", weight: 1, k: 20 },
        { name: "mid", weight: 1.2, k: 10 },
      ],
      60,
    );
    // threshold for a k of 20 at 60: 80 / 61 ~ 1.311; for a k of 10: 70 / 61 ~ 1.148.
    expect(sweeps).toEqual([
      { source: "heavy", over: "light", ratio: 10, threshold: 80 / 61 },
      { source: "heavy", over: "mid", ratio: 10 / 1.2, threshold: 80 / 61 },
      { source: "mid", over: "light", ratio: 1.2, threshold: 70 / 61 },
    ]);
  });

  it("needs the ratio to exceed the threshold strictly; equal weights and k = 1 never sweep", () => {
    expect(
      sweepingSources(
        [
          { name: "a", weight: 2, k: 3 },
          { name: "b", weight: 1, k: 3 },
        ],
        1,
      ),
    ).toEqual([]); // threshold (1 + 3) / 2 = 2: equal, not above
    expect(
      sweepingSources(
        [
          { name: "a", weight: 1, k: 1 },
          { name: "b", weight: 1, k: 1 },
        ],
        60,
      ),
    ).toEqual([]);
  });
});

describe("applyBoost (rule 8)", () => {
  const fused = fuseRrf(
    [
      { name: "a", weight: 1, ids: ["x", "y", "z"] },
      { name: "b", weight: 1, ids: ["y"] },
    ],
    60,
  );

  it("multiplies the fused value by max(0, boost) and re-sorts", () => {
    expect(fused.map((h) => h.id)).toEqual(["y", "x", "z"]);
    const y = 1 / 62 + 1 / 61;
    expect(fused[0]?.rank_score).toBe(y);
    const boosted = applyBoost(fused, [0.5, 1, 3]); // y, x, z
    expect(boosted.map((h) => [h.id, h.rank_score])).toEqual([
      ["z", (1 / 63) * 3],
      ["x", 1 / 61],
      ["y", y * 0.5],
    ]);
    expect(boosted.find((h) => h.id === "y")?.source_ranks).toEqual({ a: 2, b: 1 });
    // the input is left alone
    expect(fused[0]?.rank_score).toBe(y);
  });

  it("a negative or non-finite boost counts 0; ties keep the fused order", () => {
    const boosted = applyBoost(fused, [-1, Number.NaN, 0]);
    expect(boosted.map((h) => [h.id, h.rank_score])).toEqual([
      ["y", 0],
      ["x", 0],
      ["z", 0],
    ]);
    const reversed = applyBoost(fused, [0, Number.POSITIVE_INFINITY, 0]);
    expect(reversed.map((h) => h.id)).toEqual(["y", "x", "z"]);
  });

  it("refuses boost values that do not match the hits", () => {
    expect(() => applyBoost(fused, [1])).toThrow(RangeError);
  });
});
