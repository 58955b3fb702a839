import { describe, expect, it } from "vitest";
import { Def } from "../../src/catalog/definition/def.js";
import {
  DEFAULT_RANK_CONF,
  parseRankConf,
  parseRankExpression,
  type RankContext,
  rankGrammar,
  scoreNamesUsed,
} from "../../src/catalog/definition/rank.js";
import { readsAge } from "../../src/catalog/index.js";
import { definitionError } from "../support/catalog-index-fixture.js";

class Refused extends Error {
  constructor(
    readonly path: (string | number)[],
    detail: string,
  ) {
    super(detail);
  }
}

const where = (path: (string | number)[], detail: string): never => {
  throw new Refused(path, detail);
};
const parse = (value: unknown, ctx: RankContext = {}) => parseRankExpression(value, where, ctx);
function refused(value: unknown, ctx: RankContext = {}): Refused {
  try {
    parse(value, ctx);
  } catch (error) {
    if (error instanceof Refused) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("parseRankExpression", () => {
  it("accepts every operator of the grammar", () => {
    const expression = [
      "sum",
      [
        ["similarity"],
        ["text_match"],
        ["score", "importance"],
        ["age_hours", "occurred_at"],
        ["const", 2],
        ["max", [["const", 1]]],
        ["product", -0.5, ["const", 1]],
        ["normalize", ["const", 1]],
        ["saturate", ["const", 1], { midpoint: 2, exponent: 1 }],
        ["decay", ["age_hours", "created_at"], { midpoint: 24, exponent: 0.5 }],
      ],
    ];
    expect(parse(expression, { mode: "hybrid", scoreNames: new Set(["importance"]) })).toEqual(expression);
  });

  it("refuses an unknown operator", () => {
    expect(refused(["boost", 1]).path).toEqual([0]);
  });

  it("refuses a node that is not a list", () => {
    expect(refused({ op: "const" }).path).toEqual([]);
    expect(refused([]).path).toEqual([]);
  });

  it("refuses wrong arity", () => {
    expect(refused(["similarity", 1]).message).toMatch(/no arguments/);
    expect(refused(["normalize"]).message).toMatch(/1 argument/);
  });

  it("refuses similarity outside vector and hybrid", () => {
    expect(refused(["similarity"], { mode: "text" }).message).toMatch(/vector and hybrid/);
    expect(parse(["similarity"], { mode: "vector" })).toEqual(["similarity"]);
  });

  it("refuses text_match outside text and hybrid", () => {
    expect(refused(["normalize", ["text_match"]], { mode: "recent" }).path).toEqual([1]);
    expect(parse(["text_match"], { mode: "text" })).toEqual(["text_match"]);
  });

  it("refuses query signals in a boost", () => {
    expect(refused(["sum", [["const", 1], ["similarity"]]], { boost: true }).path).toEqual([1, 1]);
  });

  it("refuses unknown score names when names are given", () => {
    expect(refused(["score", "nope"], { scoreNames: new Set(["a"]) }).path).toEqual([1]);
    expect(parse(["score", "nope"])).toEqual(["score", "nope"]);
  });

  it("refuses an unknown age field", () => {
    expect(refused(["age_hours", "updated_at"]).path).toEqual([1]);
  });

  it("refuses a non-numeric constant and factor", () => {
    expect(refused(["const", "1"]).path).toEqual([1]);
    expect(refused(["product", "x", ["const", 1]]).path).toEqual([1]);
  });

  it("refuses sum and max without a non-empty list", () => {
    expect(refused(["sum", []]).path).toEqual([1]);
    expect(refused(["max", ["const", 1]]).path).toEqual([1, 0]);
  });

  it("requires both curve options, positive", () => {
    expect(refused(["decay", ["const", 1], { midpoint: 1 }]).path).toEqual([2, "exponent"]);
    expect(refused(["saturate", ["const", 1], { midpoint: 0, exponent: 1 }]).path).toEqual([2, "midpoint"]);
    expect(refused(["decay", ["const", 1], { midpoint: 1, exponent: -1 }]).path).toEqual([2, "exponent"]);
    expect(refused(["decay", ["const", 1]]).message).toMatch(/2 arguments/);
  });

  it("refuses unknown curve options", () => {
    expect(refused(["decay", ["const", 1], { midpoint: 1, exponent: 1, floor: 0 }]).path).toEqual([
      2,
      "floor",
    ]);
  });

  it("bounds the nesting depth", () => {
    let node: unknown = ["const", 1];
    for (let i = 0; i < 20; i++) node = ["normalize", node];
    expect(refused(node).message).toMatch(/nest/);
  });
});

describe("helpers", () => {
  it("finds the ages and score names an expression reads", () => {
    const node = parse([
      "sum",
      [
        ["score", "a"],
        ["product", 2, ["score", "b"]],
        ["decay", ["age_hours", "occurred_at"], { midpoint: 24, exponent: 1 }],
      ],
    ]);
    expect(readsAge(node, "occurred_at")).toBe(true);
    expect(readsAge(node, "last_accessed")).toBe(false);
    expect(readsAge(parse(["age_hours", "last_accessed"]), "last_accessed")).toBe(true);
    expect([...scoreNamesUsed(node)].sort()).toEqual(["a", "b"]);
  });
});

describe("DEFAULT_RANK_CONF", () => {
  it("ships the spec's default formulas", () => {
    const decay = (field: string) => ["decay", ["age_hours", field], { midpoint: 24, exponent: 1 }];
    expect(DEFAULT_RANK_CONF.candidates).toBe(200);
    expect(DEFAULT_RANK_CONF.formulas).toEqual({
      hybrid: ["sum", [["normalize", ["max", [["similarity"], ["text_match"]]]], decay("last_accessed")]],
      vector: ["sum", [["normalize", ["similarity"]], decay("last_accessed")]],
      text: ["sum", [["normalize", ["text_match"]], decay("last_accessed")]],
      recent: decay("occurred_at"),
    });
  });

  it("is valid under its own modes", () => {
    for (const [mode, formula] of Object.entries(DEFAULT_RANK_CONF.formulas)) {
      expect(parse(formula, { mode: mode as RankContext["mode"] })).toEqual(formula);
    }
  });
});

describe("parseRankConf", () => {
  const conf = (value: unknown) => parseRankConf(new Def("conf/rank.yaml", [], value));

  it("replaces the named modes and keeps the others", () => {
    const parsed = conf({ candidates: 300, formulas: { recent: ["const", 1] } });
    expect(parsed.candidates).toBe(300);
    expect(parsed.formulas.recent).toEqual(["const", 1]);
    expect(parsed.formulas.hybrid).toEqual(DEFAULT_RANK_CONF.formulas.hybrid);
  });

  it("falls back to the defaults for an empty file", () => {
    expect(parseRankConf(new Def("conf/rank.yaml", [], undefined))).toBe(DEFAULT_RANK_CONF);
    expect(conf({})).toEqual(DEFAULT_RANK_CONF);
  });

  it("refuses unknown keys and modes", () => {
    expect(definitionError(() => conf({ pool: 1 })).extra.path).toBe("pool");
    expect(definitionError(() => conf({ formulas: { structured: ["const", 1] } })).extra.path).toBe(
      "formulas.structured",
    );
  });

  it("refuses candidates out of range", () => {
    const error = definitionError(() => conf({ candidates: 0 }));
    expect(error.code).toBe("definition_invalid");
    expect(error.extra.path).toBe("candidates");
  });

  it("locates an invalid expression and applies the mode rules", () => {
    const error = definitionError(() => conf({ formulas: { text: ["sum", [["similarity"]]] } }));
    expect(error.code).toBe("definition_invalid");
    expect(error.extra.path).toBe("formulas.text.1.0");
    expect(error.extra.file).toBe("conf/rank.yaml");
  });
});

describe("rankGrammar", () => {
  it("describes every operator", () => {
    const grammar = rankGrammar() as { operators: { operator: string }[] };
    expect(grammar.operators.map((o) => o.operator)).toEqual([
      "similarity",
      "text_match",
      "score",
      "age_hours",
      "const",
      "sum",
      "max",
      "product",
      "normalize",
      "saturate",
      "decay",
    ]);
    expect(JSON.parse(JSON.stringify(grammar))).toEqual(grammar);
  });
});
