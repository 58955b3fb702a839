import { describe, expect, it } from "vitest";
import { firstJsonObject, parseScoreReply } from "../../src/models/parse.js";

describe("reading JSON out of a reply without a JSON mode", () => {
  it("takes the whole reply, a fenced reply, or the first balanced object that parses", () => {
    expect(firstJsonObject('{"a": 1}')).toEqual({ a: 1 });
    expect(firstJsonObject('```json\n{"a": [1, 2]}\n```')).toEqual({ a: [1, 2] });
    expect(firstJsonObject('Here: {"a": "}{"} then {"b": 2}')).toEqual({ a: "}{" });
    expect(firstJsonObject('{not json} but {"b": "\\"q\\""}')).toEqual({ b: '"q"' });
    expect(firstJsonObject("no object here")).toBeUndefined();
    expect(firstJsonObject('{"open": ')).toBeUndefined();
  });
});

describe("reading a score reply", () => {
  it("accepts a bare, quoted, fenced or JSON number and one number in text", () => {
    expect(parseScoreReply("7")).toBe(7);
    expect(parseScoreReply(" `0.25` ")).toBe(0.25);
    expect(parseScoreReply("-3.")).toBe(-3);
    expect(parseScoreReply("```\n4\n```")).toBe(4);
    expect(parseScoreReply('{"score": 0.9}')).toBe(0.9);
    expect(parseScoreReply("Score: 8")).toBe(8);
    expect(parseScoreReply("1e1")).toBe(10);
  });

  it("refuses text without a number or with several", () => {
    expect(parseScoreReply("high")).toBeNull();
    expect(parseScoreReply("on a 1-10 scale, 7")).toBeNull();
    expect(parseScoreReply('{"a": 1, "b": 2}')).toBeNull();
    expect(parseScoreReply("")).toBeNull();
  });
});
