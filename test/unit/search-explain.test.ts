// explain (SearchSpec `explain: true`): the rank tree with every node's value comes from the
// evaluator's own walk (src/search/rank-eval.ts explainRank), checked here against values worked
// out by hand; the hybrid round robin names the lists that offered each record.
import { describe, expect, it } from "vitest";
import { rng as prng } from "../../bench/random.js";
import { DEFAULT_RANK_CONF } from "../../src/catalog/definition/rank.js";
import type { RankNode } from "../../src/catalog/index.js";
import { fusedExplain, wrapRank } from "../../src/search/explain.js";
import { interleave } from "../../src/search/interleave.js";
import { candidateSignals, evaluateRank, explainRank } from "../../src/search/rank-eval.js";
import type { Candidate } from "../../src/search/types.js";
import { candidate, hoursAgo, NOW } from "../support/candidates.js";

const DAY = { midpoint: 24, exponent: 1 };

describe("explainRank", () => {
  it("gives every node's value: similarity * 0.7 + text_match * 0.3 + 0.1 * decay(age 24h)", () => {
    // 0.7 * 0.8 = 0.56; 0.3 * 0.5 = 0.15; decay(24 h, midpoint 24) = 1 / (1 + 1) = 0.5, * 0.1 = 0.05
    // sum: 0.56 + 0.15 + 0.05 = 0.76
    const formula: RankNode = [
      "sum",
      [
        ["product", 0.7, ["similarity"]],
        ["product", 0.3, ["text_match"]],
        ["product", 0.1, ["decay", ["age_hours", "created_at"], DAY]],
      ],
    ];
    const c = candidate({ similarity: 0.8, text_match: 0.5, created_at: hoursAgo(24) });
    const explained = explainRank(formula, [c], NOW);
    const tree = explained.tree(0);
    expect(tree.value).toBe(explained.values[0]);
    expect(tree.value).toBe(evaluateRank(formula, [c], NOW)[0]);
    expect(tree.value).toBeCloseTo(0.76, 12);
    expect(tree).toMatchObject({ op: "sum" });
    const [sim, text, decay] = tree.args ?? [];
    expect(sim).toMatchObject({ op: "product", factor: 0.7, args: [{ signal: "similarity", value: 0.8 }] });
    expect(sim?.value).toBeCloseTo(0.56, 12);
    expect(text).toMatchObject({ op: "product", factor: 0.3, args: [{ signal: "text_match", value: 0.5 }] });
    expect(text?.value).toBeCloseTo(0.15, 12);
    expect(decay?.value).toBeCloseTo(0.05, 12);
    const curve = decay?.args?.[0];
    expect(curve).toMatchObject({ op: "decay", midpoint: 24, exponent: 1, value: 0.5 });
    expect(curve?.args).toEqual([{ signal: "age_hours", field: "created_at", value: 24 }]);
  });

  it("shows max, constants, stored scores and normalize's pool range", () => {
    // text_match over the pool: 1, 3, 2, 5 -> normalize (x - 1) / 4: 0, 0.5, 0.25, 1
    // the second candidate: max(0.5, 0.2) = 0.5, plus score urgency 0.25 = 0.75, plus const 2 = 2.75
    const formula: RankNode = [
      "sum",
      [
        [
          "max",
          [
            ["normalize", ["text_match"]],
            ["const", 0.2],
          ],
        ],
        ["score", "urgency"],
        ["const", 2],
      ],
    ];
    const pool = [1, 3, 2, 5].map((t) => candidate({ text_match: t, scores: { urgency: 0.25 } }));
    const explained = explainRank(formula, pool, NOW);
    expect(explained.values).toEqual(evaluateRank(formula, pool, NOW));
    expect(explained.tree(1)).toEqual({
      op: "sum",
      value: 2.75,
      args: [
        {
          op: "max",
          value: 0.5,
          args: [
            { op: "normalize", min: 1, max: 5, value: 0.5, args: [{ signal: "text_match", value: 3 }] },
            { const: 0.2, value: 0.2 },
          ],
        },
        { signal: "score", name: "urgency", value: 0.25 },
        { const: 2, value: 2 },
      ],
    });
    // The first: max(0, 0.2) = 0.2; 0.2 + 0.25 + 2 = 2.45
    const first = explained.tree(0);
    expect(first.value).toBeCloseTo(2.45, 12);
    expect(first.args?.[0]?.value).toBe(0.2);
    expect(first.args?.[0]?.args?.[0]?.value).toBe(0);
  });

  it("saturate and a penalty: saturate(text_match 2, midpoint 2, exponent 2) = 0.5; product -1", () => {
    const formula: RankNode = ["product", -1, ["saturate", ["text_match"], { midpoint: 2, exponent: 2 }]];
    const tree = explainRank(formula, [candidate({ text_match: 2 })], NOW).tree(0);
    expect(tree).toEqual({
      op: "product",
      factor: -1,
      value: -0.5,
      args: [
        { op: "saturate", midpoint: 2, exponent: 2, value: 0.5, args: [{ signal: "text_match", value: 2 }] },
      ],
    });
  });

  it("roots every tree at the very rank_score evaluateRank computes (default formulas)", () => {
    const rng = prng(7);
    const pool = Array.from({ length: 200 }, () =>
      candidate({
        similarity: rng() * 2 - 1,
        text_match: rng() * 3,
        occurred_at: hoursAgo(rng() * 500 - 10),
        created_at: hoursAgo(rng() * 500),
        last_accessed: rng() < 0.5 ? null : hoursAgo(rng() * 100),
      }),
    );
    for (const formula of Object.values(DEFAULT_RANK_CONF.formulas)) {
      const values = evaluateRank(formula, pool, NOW);
      const explained = explainRank(formula, pool, NOW);
      expect(explained.values).toEqual(values);
      for (let i = 0; i < pool.length; i++) expect(explained.tree(i).value).toBe(values[i]);
    }
  });

  it("an empty pool has no trees", () => {
    const explained = explainRank(["similarity"], [], NOW);
    expect(explained.values).toEqual([]);
    expect(() => explained.tree(0)).toThrow(RangeError);
  });
});

describe("candidateSignals", () => {
  it("reports the query signals (null when not computed), every age and the stored scores", () => {
    const c = candidate({
      similarity: 0.25,
      created_at: hoursAgo(48),
      occurred_at: hoursAgo(72),
      last_accessed: null,
      scores: { urgency: 0.9 },
    });
    expect(candidateSignals(c, NOW)).toEqual({
      similarity: 0.25,
      text_match: null,
      // never returned by a search: last_accessed counts from created_at, as the rank reads it
      age_hours: { created_at: 48, occurred_at: 72, last_accessed: 48 },
      scores: { urgency: 0.9 },
    });
    const future = candidate({ created_at: hoursAgo(-5), last_accessed: hoursAgo(1.5) });
    expect(candidateSignals(future, NOW).age_hours).toEqual({
      created_at: 0,
      occurred_at: 0,
      last_accessed: 1.5,
    });
  });
});

describe("fused explanations", () => {
  it("rrf over the sources that found the record, under the boost: 1/61 + 2/63, then x 0.5", () => {
    const c = candidate({ similarity: 0.9 });
    const d = candidate({ text_match: 1.5 });
    const entry = (x: Candidate, rank: number) => ({
      explain: () => ({
        signals: candidateSignals(x, NOW),
        rank: { signal: "similarity", value: rank },
        proposed_by: [x === c ? ("vector" as const) : ("text" as const)],
      }),
    });
    const sources = [
      { name: "sem", weight: 1, entries: new Map([[c.id, entry(c, 0.9)]]) },
      { name: "kw", weight: 2, entries: new Map([[c.id, entry(d, 1.5)]]) },
    ];
    // 1 / (60 + 1) + 2 / (60 + 3)
    const fusedValue = 1 / 61 + 2 / 63;
    const hit = { id: c.id, rank_score: fusedValue * 0.5, source_ranks: { sem: 1, kw: 3 } };
    const explained = fusedExplain(hit, fusedValue, sources, 60, () => ({ const: 0.5, value: 0.5 }))();
    expect(explained.proposed_by).toEqual(["vector", "text"]);
    expect(explained.source_ranks).toEqual({ sem: 1, kw: 3 });
    // signals: the first source's, with text_match taken from the second
    expect(explained.signals.similarity).toBe(0.9);
    expect(explained.signals.text_match).toBe(1.5);
    expect(explained.rank).toEqual({
      op: "boost",
      value: hit.rank_score,
      args: [
        {
          op: "rrf",
          rank_constant: 60,
          value: fusedValue,
          args: [
            {
              source: "sem",
              source_rank: 1,
              weight: 1,
              value: 1 / 61,
              rank: { signal: "similarity", value: 0.9 },
            },
            {
              source: "kw",
              source_rank: 3,
              weight: 2,
              value: 2 / 63,
              rank: { signal: "similarity", value: 1.5 },
            },
          ],
        },
        { const: 0.5, value: 0.5 },
      ],
    });
    const wrapped = wrapRank(
      () => explained,
      (rank) => ({ op: "graph_boost", value: 1, args: [rank] }),
    );
    expect(wrapped?.().rank).toMatchObject({ op: "graph_boost", value: 1, args: [{ op: "boost" }] });
  });
});

describe("interleave: the lists that offered each record", () => {
  it("names every list whose turn reached the record, taken or already taken", () => {
    const list = (...ids: string[]) => ids.map((id) => ({ id }) as Candidate);
    const offered = new Map<string, number[]>();
    const { out } = interleave([list("a", "b", "c"), list("b", "d"), list("e", "a")], 4, offered);
    // round 1: a (0), b (1), e (2); round 2: b again (0, skipped), d (1) makes 4 and stops
    expect(out.map((c) => c.id)).toEqual(["a", "b", "e", "d"]);
    expect(Object.fromEntries(offered)).toEqual({ a: [0], b: [1, 0], e: [2], d: [1] });
  });
});
