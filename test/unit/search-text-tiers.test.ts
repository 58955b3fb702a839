// How deep each common word's tiers are read when the walk's tier does not bound the records it
// left out (src/search/text-tiers.ts tiersToRead): a record left out holds each word w fewer
// than T_w times, so it ranks at most 0.1 x sum(T_w - 1), which must stay below the k-th rank.
import { describe, expect, it } from "vitest";
import { tiersToRead, wordsByRarity } from "../../src/search/text-tiers.js";

describe("text tiers: the tiers to read per word", () => {
  it("lowers the rarest word's tiers first, the others only as far as still needed", () => {
    // Walked to tier 9: unread records may hold 3 x 8 occurrences (2.4) against a k-th of 1.2.
    expect(tiersToRead(1.2, 9, 3)).toEqual([2, 3, 9]);
    expect(tiersToRead(0.6, 6, 2)).toEqual([2, 5]);
  });

  it("lowers a word's tiers only as far as needed, and none when the walk's tier is enough", () => {
    expect(tiersToRead(1.0, 6, 2)).toEqual([5, 6]);
    expect(tiersToRead(1.05, 6, 2)).toEqual([6, 6]);
  });

  it("gives up when even every word's lowest tier leaves a record as good as the k-th", () => {
    // Below tier 2 each word may occur once: two words bound the unread at 0.2.
    expect(tiersToRead(0.2, 6, 2)).toBeUndefined();
    expect(tiersToRead(0.21, 6, 2)).toEqual([2, 2]);
  });

  it("by the tier sizes, lowers the word whose next tiers hold the fewest records per occurrence", () => {
    // Walked to tier 6 with the k-th at 0.75: the unread may hold at most 7 occurrences between
    // two words. Word 0's tier 3 holds 1,000 records, word 1's tiers 20 each: rather than word 0
    // down to 3 (2 + 5), word 0 down to 4 and word 1 to 5 (3 + 4).
    const sizes: Record<number, Record<number, number>> = {
      0: { 5: 10, 4: 10, 3: 1_000, 2: 5_000 },
      1: { 5: 20, 4: 20, 3: 20, 2: 20 },
    };
    const size = (word: number, tier: number) => sizes[word]?.[tier] ?? 0;
    expect(tiersToRead(0.75, 6, 2)).toEqual([3, 6]);
    expect(tiersToRead(0.75, 6, 2, size)).toEqual([4, 5]);
  });

  it("orders the common words rarest first by the planner's estimate", () => {
    const words = wordsByRarity(
      [
        { lexeme: "free", matches: 70_000 },
        { lexeme: "mipi", matches: 40 },
        { lexeme: "call", matches: 9_000 },
        { lexeme: "new", matches: undefined },
        { lexeme: "receipt", matches: 5_000 },
      ],
      200,
    );
    expect(words).toEqual({ common: ["receipt", "call", "free", "new"], rare: ["mipi"] });
  });
});
