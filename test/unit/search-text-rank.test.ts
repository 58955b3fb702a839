// The tsquery literals the text tiers and levels read with (src/search/text-rank.ts): lexemes
// taken as they are, and the records holding at least d of the query's words as a disjunction
// of conjunctions, refused past a bound on their number.
import { describe, expect, it } from "vitest";
import { anyLexemeQuery, atLeastQuery } from "../../src/search/text-rank.js";

describe("text rank: tsquery literals of lexemes", () => {
  it("matches any lexeme, quoting each as it is", () => {
    expect(anyLexemeQuery(["refund", "o'brien", "a\\b"])).toBe("'refund' | 'o''brien' | 'a\\\\b'");
  });

  it("holding at least d of n words: every choice of d, ANDed", () => {
    expect(atLeastQuery(["a", "b", "c"], 3, 64)).toBe("('a' & 'b' & 'c')");
    expect(atLeastQuery(["a", "b", "c"], 2, 64)).toBe("('a' & 'b') | ('a' & 'c') | ('b' & 'c')");
    expect(atLeastQuery(["a", "b"], 1, 64)).toBe("('a') | ('b')");
  });

  it("refuses a level of more conjunctions than the bound", () => {
    const words = Array.from({ length: 12 }, (_, i) => `w${i}`);
    // C(12, 10) = 66, C(12, 11) = 12.
    expect(atLeastQuery(words, 10, 64)).toBeUndefined();
    expect(atLeastQuery(words, 11, 64)?.split(" | ")).toHaveLength(12);
    // The 64 words a query may hold, all but one of them: 64 conjunctions, at once.
    const most = Array.from({ length: 64 }, (_, i) => `w${i}`);
    expect(atLeastQuery(most, 63, 64)?.split(" | ")).toHaveLength(64);
  });
});
