import { describe, expect, it } from "vitest";
import type { GraphLink } from "../../src/search/graph.js";
import { applyGraphBoost, nodeDistances } from "../../src/search/graph-boost.js";
import type { Candidate } from "../../src/search/types.js";

const link = (id: string, subject: string, object: string): GraphLink => ({
  id,
  text: "",
  subject,
  object,
  predicate: null,
  content: {},
});

const candidate = (id: string, entity: string, key: string | null = null) =>
  ({ id, entity, key }) as unknown as Candidate;

describe("graph_boost distances", () => {
  const links = [link("1", "a", "b"), link("2", "b", "c"), link("3", "c", "a"), link("4", "c", "d")];

  it("follows links both ways and keeps the fewest links to each node", () => {
    const { distance, edges } = nodeDistances(links, "a", 1);
    expect(Object.fromEntries(distance)).toEqual({ a: 0, b: 1, c: 1 });
    expect(edges).toBe(2);
  });

  it("goes deeper without looping on the cycle", () => {
    const { distance, edges } = nodeDistances(links, "a", 16);
    expect(Object.fromEntries(distance)).toEqual({ a: 0, b: 1, c: 1, d: 2 });
    expect(edges).toBe(4);
  });

  it("an anchor no link names reaches only itself", () => {
    expect(nodeDistances(links, "zz", 3)).toEqual({ distance: new Map([["zz", 0]]), edges: 0 });
  });
});

describe("graph_boost values", () => {
  const distance = new Map([
    ["anchor", 0],
    ["near", 1],
  ]);

  it("adds |value| * weight / (1 + distance), by entity or key, then re-sorts", () => {
    const ranked = [
      { candidate: candidate("x", "far"), rank_score: 1 },
      { candidate: candidate("y", "near"), rank_score: 0.6 },
      { candidate: candidate("z", "other", "anchor"), rank_score: 0.3 },
    ];
    const { ranked: out, matched } = applyGraphBoost(ranked, distance, 2);
    expect(matched).toBe(2);
    expect(out.map((r) => r.candidate.id)).toEqual(["y", "x", "z"]);
    expect(out[0]?.rank_score).toBeCloseTo(0.6 + (0.6 * 2) / 2, 12);
    expect(out[2]?.rank_score).toBeCloseTo(0.3 + 0.3 * 2, 12);
  });

  it("moves a negative rank_score up, leaves 0 alone, and keeps ties in their order", () => {
    const ranked = [
      { candidate: candidate("a", "far"), rank_score: 0 },
      { candidate: candidate("b", "anchor"), rank_score: 0 },
      { candidate: candidate("c", "anchor"), rank_score: -2 },
    ];
    const { ranked: out } = applyGraphBoost(ranked, distance, 0.5);
    expect(out.map((r) => [r.candidate.id, r.rank_score])).toEqual([
      ["a", 0],
      ["b", 0],
      ["c", -1],
    ]);
  });
});
