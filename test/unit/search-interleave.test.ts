// Hybrid proposals read each list only as deep as the round robin goes (src/search/candidates.ts).
import { describe, expect, it } from "vitest";
import { interleaveByNeed } from "../../src/search/interleave.js";
import type { Candidate } from "../../src/search/types.js";

const list = (...ids: string[]) => ids.map((id) => ({ id }) as Candidate);

/** A proposer over a fixed ranked list that records the depth of every read. */
function proposer(full: Candidate[], reads: number[]) {
  return async (limit: number) => {
    reads.push(limit);
    return full.slice(0, limit);
  };
}

/** The round robin over `lists` for a pool of `limit`: its ids and each list's read depths. */
async function run(lists: Candidate[][], limit: number, first?: number) {
  const reads = lists.map((): number[] => []);
  const proposers = lists.map((full, j) => proposer(full, reads[j] as number[]));
  const out = await interleaveByNeed(proposers, limit, first);
  return { ids: out.map((c) => c.id), reads };
}

/** Two lists ranking the same records: each round adds one, so 6 need 6 rounds. */
const same = list("r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8");

describe("interleaveByNeed", () => {
  it("reads lists that do not overlap a quarter deeper than limit / lists, once", async () => {
    const lists = [list("a1", "a2", "a3", "a4", "a5"), list("b1", "b2", "b3", "b4"), list("c1", "c2", "c3")];
    expect(await run(lists, 6)).toEqual({
      ids: ["a1", "b1", "c1", "a2", "b2", "c2"],
      reads: [[3], [3], [3]],
    });
  });

  it("reads a list deeper when the round robin ran past its end and it may hold more", async () => {
    // 4 deep (6 * 1.25 / 2 rounded up), then twice that up to the limit.
    expect(await run([same, same], 6)).toEqual({
      ids: ["r1", "r2", "r3", "r4", "r5", "r6"],
      reads: [
        [4, 6],
        [4, 6],
      ],
    });
  });

  it("does not read a list again that ended before its depth", async () => {
    // x's list is complete (2 < 4); y's was cut at 4 and the round robin read it to the end.
    expect(await run([list("x1", "x2"), list("x1", "y2", "y3", "y4", "y5")], 6)).toEqual({
      ids: ["x1", "x2", "y2", "y3", "y4", "y5"],
      reads: [[4], [4, 6]],
    });
  });

  it("reads each list to the given first depth (an entity's few records: the whole limit)", async () => {
    expect(await run([same, same], 6, 6)).toEqual({
      ids: ["r1", "r2", "r3", "r4", "r5", "r6"],
      reads: [[6], [6]],
    });
  });

  it("equals the round robin over lists read limit deep", async () => {
    const lists = [
      list("a", "b", "c", "d", "e", "f", "g", "h"),
      list("b", "a", "d", "c", "x", "y", "z", "w"),
      list("h", "g", "a", "b", "q", "r", "s", "t"),
    ];
    for (let limit = 1; limit <= 8; limit++) {
      const lazy = await run(lists, limit);
      const seen = new Set<string>();
      const eager: string[] = [];
      for (let i = 0; i < 8 && eager.length < limit; i++) {
        for (const full of lists) {
          const id = (full[i] as Candidate).id;
          if (!seen.has(id) && eager.length < limit) {
            seen.add(id);
            eager.push(id);
          }
        }
      }
      expect(lazy.ids).toEqual(eager);
    }
  });
});
