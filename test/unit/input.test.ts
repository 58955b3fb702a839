import { describe, expect, it } from "vitest";
import { parseTimestamptz } from "../../src/platform/db/timestamps.js";
import { inputProblems, MAX_INPUT_DEPTH, printable, textProblem } from "../../src/platform/input.js";
import { MAX_TEXT_TERMS, textTerms } from "../../src/search/sql.js";

describe("input rules", () => {
  it("text may hold anything but NUL and lone surrogates (pairs are fine)", () => {
    expect(textProblem("plain, ünïcode, 😀")).toBeUndefined();
    expect(textProblem("a\u0000")).toMatch(/NUL/);
    expect(textProblem("\ud83d")).toMatch(/surrogate/);
    expect(textProblem("\ude00x")).toMatch(/surrogate/);
    expect(printable("a\u0000\ud800😀")).toBe("a\ufffd\ufffd😀");
  });

  it("finds bad strings, bad property names, non-finite numbers and deep nesting, with their paths", () => {
    expect(
      inputProblems({ a: [1, "ok", { b: "x\u0000" }], "k\u0000": 1, n: Number.POSITIVE_INFINITY }),
    ).toEqual([
      { path: ["k\u0000"], message: expect.stringMatching(/property name/) },
      { path: ["a", 2, "b"], message: expect.stringMatching(/NUL/) },
      { path: ["n"], message: "must be a finite number" },
    ]);
    let deep: unknown = 1;
    for (let i = 0; i < 1_000_000; i++) deep = [deep];
    const [problem] = inputProblems(deep);
    expect(problem?.path).toHaveLength(MAX_INPUT_DEPTH);
    let ok: unknown = 1;
    for (let i = 0; i < MAX_INPUT_DEPTH; i++) ok = [ok];
    expect(inputProblems(ok)).toEqual([]);
  });

  it("reports at most 20 problems", () => {
    expect(inputProblems(Array.from({ length: 1000 }, () => "\u0000"))).toHaveLength(20);
  });
});

describe("timestamptz text as PostgreSQL prints it", () => {
  it.each([
    ["0001-01-01 00:00:00+00", "0001-01-01T00:00:00.000Z"],
    ["0099-06-30 12:00:00.5+00", "0099-06-30T12:00:00.500Z"],
    ["2026-11-23 10:30:00.123456+05:30", "2026-11-23T05:00:00.123Z"],
    ["1999-12-31 23:00:00-01", "2000-01-01T00:00:00.000Z"],
    ["9999-12-31 23:59:59+00", "9999-12-31T23:59:59.000Z"],
    ["0100-03-01 00:00:00+00", "0100-03-01T00:00:00.000Z"],
    ["2026-11-26 09:49:43.999999+00", "2026-11-26T09:49:43.999Z"],
    ["2026-11-26 09:49:43.07-08", "2026-11-26T17:49:43.070Z"],
    ["1900-01-01 00:00:00+00:09:21", "1899-12-31T23:50:39.000Z"],
    ["0500-01-01 00:00:00+00 BC", "-000499-01-01T00:00:00.000Z"],
    ["12345-01-01 00:00:00+00", "+012345-01-01T00:00:00.000Z"],
  ])("%s reads as %s", (text, iso) => {
    expect(parseTimestamptz(text).toISOString()).toBe(iso);
  });

  it("infinities are invalid Dates", () => {
    expect(parseTimestamptz("infinity").getTime()).toBeNaN();
    expect(parseTimestamptz("-infinity").getTime()).toBeNaN();
  });
});

describe("text query terms", () => {
  it("keeps the first distinct terms in order, phrases and exclusions included", () => {
    expect(textTerms('refund "card declined" -spam refund')).toEqual([
      { text: "refund", phrase: false, negate: false },
      { text: "card declined", phrase: true, negate: false },
      { text: "spam", phrase: false, negate: true },
    ]);
    const many = textTerms(Array.from({ length: 500 }, (_, i) => `t${i}`).join(" "));
    expect(many).toHaveLength(MAX_TEXT_TERMS);
    expect(many.at(-1)?.text).toBe(`t${MAX_TEXT_TERMS - 1}`);
  });
});
