// Rank expressions (docs/api.md, "Rank expressions") and conf/rank.yaml (docs/catalog.md), which
// replaces the shipped default formulas. One parser serves catalog files (errors through Def.fail) and search
// requests (errors as {path, message}): it reports through a `where` callback that never returns.
import type { Def } from "./def.js";
import { BM25_LIMITS, DEFAULT_BM25, TEXT_RANK_KINDS } from "./types.js";

export type SearchMode = "vector" | "text" | "hybrid" | "recent" | "structured";
export const SEARCH_MODES: readonly SearchMode[] = ["vector", "text", "hybrid", "recent", "structured"];
export type RankedMode = Exclude<SearchMode, "structured">;
export const RANKED_MODES: readonly RankedMode[] = ["vector", "text", "hybrid", "recent"];

export type AgeField = "created_at" | "occurred_at" | "last_accessed";
export const AGE_FIELDS: readonly AgeField[] = ["created_at", "occurred_at", "last_accessed"];

export interface CurveOptions {
  midpoint: number;
  exponent: number;
}

/** A normalized rank expression: docs/api.md's list form, with every option spelled out. */
export type RankNode =
  | readonly ["similarity"]
  | readonly ["text_match"]
  | readonly ["score", string]
  | readonly ["age_hours", AgeField]
  | readonly ["const", number]
  | readonly ["sum", readonly RankNode[]]
  | readonly ["max", readonly RankNode[]]
  | readonly ["product", number, RankNode]
  | readonly ["normalize", RankNode]
  | readonly ["saturate", RankNode, CurveOptions]
  | readonly ["decay", RankNode, CurveOptions];

export type RankOperator = RankNode[0];

export type RankPath = (string | number)[];
/** Reports a problem at a path relative to the expression; never returns. */
export type RankWhere = (path: RankPath, detail: string) => never;

export interface RankContext {
  /** The search mode: similarity needs vector or hybrid, text_match text or hybrid. */
  mode?: SearchMode;
  /** When given, [score, name] must name one of these. */
  scoreNames?: ReadonlySet<string>;
  /** A fusion boost: stored scores, ages and constants only, no query-specific signal. */
  boost?: boolean;
}

/** Bounds that keep one expression cheap to evaluate per candidate (docs/api.md, "Rank expressions"). */
export const RANK_LIMITS = { maxDepth: 16, maxNodes: 128, maxChildren: 16 } as const;

const GRAMMAR = [
  { op: "similarity", args: [], modes: ["vector", "hybrid"], meaning: "1 minus cosine distance" },
  {
    op: "text_match",
    args: [],
    modes: ["text", "hybrid"],
    meaning:
      "Okapi BM25 over the workspace's own statistics divided by the query's largest possible BM25, 0 to 1 (a profile with text_rank: ts_rank_cd: ts_rank_cd, 0 upward); see text_rank",
  },
  { op: "score", args: ["name"], meaning: "stored score by name; missing is 0" },
  { op: "age_hours", args: ["field"], fields: AGE_FIELDS, meaning: "hours since the timestamp; future is 0" },
  { op: "const", args: ["number"], meaning: "fixed number" },
  { op: "sum", args: ["[expression, ...]"], meaning: "sum of children" },
  { op: "max", args: ["[expression, ...]"], meaning: "largest child" },
  {
    op: "product",
    args: ["factor", "expression"],
    meaning: "multiply by a fixed number (negative: penalty)",
  },
  {
    op: "normalize",
    args: ["expression"],
    meaning: "(x - min) / (max - min) across current candidates; ties 0",
  },
  {
    op: "saturate",
    args: ["expression", "{midpoint, exponent}"],
    meaning: "x^e / (x^e + m^e), input clamped at 0; options required and positive",
  },
  {
    op: "decay",
    args: ["expression", "{midpoint, exponent}"],
    meaning: "1 / (1 + x^e / m^e), input clamped at 0; options required and positive",
  },
] as const;

const OPERATORS = GRAMMAR.map((g) => g.op) as readonly string[];

function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  return `${typeof value} ${JSON.stringify(value)}`;
}

/** Parses and normalizes a rank expression, refusing anything outside the grammar. */
export function parseRankExpression(value: unknown, where: RankWhere, ctx: RankContext = {}): RankNode {
  let nodes = 0;
  const finite = (v: unknown, path: RankPath, what: string): number => {
    if (typeof v !== "number" || !Number.isFinite(v))
      where(path, `${what} must be a number, got ${describeValue(v)}`);
    return v as number;
  };
  const options = (v: unknown, path: RankPath): CurveOptions => {
    if (v === null || typeof v !== "object" || Array.isArray(v)) {
      where(path, `expected options {midpoint, exponent}, got ${describeValue(v)}`);
    }
    const o = v as Record<string, unknown>;
    for (const k of Object.keys(o)) {
      if (k !== "midpoint" && k !== "exponent")
        where([...path, k], `unknown option "${k}" (allowed: midpoint, exponent)`);
    }
    const positive = (k: "midpoint" | "exponent") => {
      if (o[k] === undefined) where([...path, k], "is required");
      const n = finite(o[k], [...path, k], k);
      if (n <= 0) where([...path, k], `${k} must be greater than 0, got ${n}`);
      return n;
    };
    return { midpoint: positive("midpoint"), exponent: positive("exponent") };
  };
  const walk = (v: unknown, path: RankPath, depth: number): RankNode => {
    if (++nodes > RANK_LIMITS.maxNodes)
      where(path, `an expression may have at most ${RANK_LIMITS.maxNodes} nodes`);
    if (depth > RANK_LIMITS.maxDepth)
      where(path, `an expression may nest at most ${RANK_LIMITS.maxDepth} deep`);
    if (!Array.isArray(v) || v.length === 0) {
      where(path, `expected a node [operator, ...], got ${describeValue(v)}`);
    }
    const [op, ...args] = v as unknown[];
    if (typeof op !== "string" || !OPERATORS.includes(op)) {
      where([...path, 0], `unknown operator ${describeValue(op)} (allowed: ${OPERATORS.join(", ")})`);
    }
    const arity = (n: number) => {
      if (args.length !== n) {
        where(
          path,
          `${op} takes ${n === 0 ? "no arguments" : `${n} argument${n > 1 ? "s" : ""}`}, got ${args.length}`,
        );
      }
    };
    const child = (i: number) => walk(args[i - 1], [...path, i], depth + 1);
    switch (op) {
      case "similarity":
      case "text_match": {
        arity(0);
        const modes = op === "similarity" ? ["vector", "hybrid"] : ["text", "hybrid"];
        if (ctx.boost) where(path, `${op} is query-specific and not allowed in a boost`);
        if (ctx.mode && !modes.includes(ctx.mode)) {
          where(path, `${op} is available in ${modes.join(" and ")} mode only, not ${ctx.mode}`);
        }
        return [op];
      }
      case "score": {
        arity(1);
        const name = args[0];
        if (typeof name !== "string" || name.trim() === "") where([...path, 1], "expected a score name");
        if (ctx.scoreNames && !ctx.scoreNames.has(name as string)) {
          where([...path, 1], `no score named "${name as string}" is produced by the catalog`);
        }
        return ["score", name as string];
      }
      case "age_hours": {
        arity(1);
        if (!AGE_FIELDS.includes(args[0] as AgeField)) {
          where([...path, 1], `expected one of ${AGE_FIELDS.join(", ")}, got ${describeValue(args[0])}`);
        }
        return ["age_hours", args[0] as AgeField];
      }
      case "const":
        arity(1);
        return ["const", finite(args[0], [...path, 1], "const")];
      case "sum":
      case "max": {
        arity(1);
        const list = args[0];
        if (!Array.isArray(list) || list.length === 0) {
          where([...path, 1], `${op} takes a non-empty list of expressions, got ${describeValue(list)}`);
        }
        if ((list as unknown[]).length > RANK_LIMITS.maxChildren) {
          where([...path, 1], `${op} takes at most ${RANK_LIMITS.maxChildren} expressions`);
        }
        return [op, (list as unknown[]).map((item, i) => walk(item, [...path, 1, i], depth + 1))];
      }
      case "product":
        arity(2);
        return ["product", finite(args[0], [...path, 1], "factor"), child(2)];
      case "normalize":
        arity(1);
        return ["normalize", child(1)];
      default:
        arity(2);
        return [op as "saturate" | "decay", child(1), options(args[1], [...path, 2])];
    }
  };
  return walk(value, [], 0);
}

/** Whether any node of an expression passes the test. */
function anyNode(node: RankNode, test: (node: RankNode) => boolean): boolean {
  if (test(node)) return true;
  switch (node[0]) {
    case "sum":
    case "max":
      return node[1].some((child) => anyNode(child, test));
    case "product":
      return anyNode(node[2], test);
    case "normalize":
    case "saturate":
    case "decay":
      return anyNode(node[1], test);
    default:
      return false;
  }
}

/** Whether an expression reads the age of a timestamp (the engine fetches only what it needs). */
export function readsAge(node: RankNode, field: AgeField): boolean {
  return anyNode(node, (n) => n[0] === "age_hours" && n[1] === field);
}

/** Every stored score name an expression reads. */
export function scoreNamesUsed(node: RankNode, out: Set<string> = new Set()): Set<string> {
  switch (node[0]) {
    case "score":
      out.add(node[1]);
      break;
    case "sum":
    case "max":
      for (const child of node[1]) scoreNamesUsed(child, out);
      break;
    case "product":
      scoreNamesUsed(node[2], out);
      break;
    case "normalize":
    case "saturate":
    case "decay":
      scoreNamesUsed(node[1], out);
      break;
  }
  return out;
}

export interface RankConf {
  /** Base candidate count of the default file. */
  candidates: number;
  formulas: Record<RankedMode, RankNode>;
}

const DAY_DECAY = (field: AgeField): RankNode => [
  "decay",
  ["age_hours", field],
  { midpoint: 24, exponent: 1 },
];

/** The shipped default file (docs/api.md, "Rank expressions": default formulas). */
export const DEFAULT_RANK_CONF: RankConf = {
  candidates: 200,
  formulas: {
    hybrid: ["sum", [["normalize", ["max", [["similarity"], ["text_match"]]]], DAY_DECAY("last_accessed")]],
    vector: ["sum", [["normalize", ["similarity"]], DAY_DECAY("last_accessed")]],
    text: ["sum", [["normalize", ["text_match"]], DAY_DECAY("last_accessed")]],
    recent: DAY_DECAY("occurred_at"),
  },
};

/** A `where` that refuses through a Def, for rank expressions inside catalog files. */
export function defWhere(src: Def): RankWhere {
  return (path, detail) => {
    let at = src;
    for (const segment of path) at = at.at(segment);
    return at.fail(detail);
  };
}

/**
 * conf/rank.yaml:
 *   candidates: 200          # optional, integer 1..1000, default 200
 *   formulas:                # optional; a mode left out keeps its shipped formula
 *     hybrid: [sum, [[normalize, [max, [[similarity], [text_match]]]], [const, 0]]]
 * Score names are not checked here (the catalog may produce them); structured has no formula.
 */
export function parseRankConf(src: Def): RankConf {
  if (!src.present) return DEFAULT_RANK_CONF;
  src.fields(["candidates", "formulas"]);
  const candidates =
    src.at("candidates").maybe()?.integer({ min: 1, max: 1000 }) ?? DEFAULT_RANK_CONF.candidates;
  const formulas = { ...DEFAULT_RANK_CONF.formulas };
  const formulasDef = src.at("formulas").maybe();
  if (formulasDef) {
    formulasDef.fields(RANKED_MODES);
    for (const [mode, expression] of formulasDef.entries()) {
      formulas[mode as RankedMode] = parseRankExpression(expression.value, defWhere(expression), {
        mode: mode as RankedMode,
      });
    }
  }
  return { candidates, formulas };
}

/** The normalized grammar of `GET /rank/schema`. */
export function rankGrammar(): Record<string, unknown> {
  return {
    form: "list",
    description: "Every node is a list whose first item is the operator; higher wins; a missing signal is 0.",
    operators: GRAMMAR.map((g) => ({
      operator: g.op,
      arguments: [...g.args],
      ...("modes" in g ? { modes: [...g.modes] } : {}),
      ...("fields" in g ? { fields: [...g.fields] } : {}),
      meaning: g.meaning,
    })),
    modes: [...RANKED_MODES],
    boost: {
      allowed: ["score", "age_hours", "const", "sum", "max", "product", "normalize", "saturate", "decay"],
    },
    limits: { ...RANK_LIMITS },
  };
}

/**
 * The `text_rank` document of `GET /rank/schema`: what `text_match` computes under each kind a
 * search profile's `text_rank` may name (docs/api.md, "Relevance: `text_match`").
 */
export function textRankSchema(): Record<string, unknown> {
  return {
    description:
      "What text_match computes; each search profile's text_rank (backend.profiles[].text_rank) picks the kind.",
    kinds: [...TEXT_RANK_KINDS],
    default: { ...DEFAULT_BM25 },
    bm25: {
      score:
        "sum over the query's distinct terms t of idf(t) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * |d| / avgdl)), divided by sum over the same terms of idf(t) * (k1 + 1)",
      idf: "ln(1 + (N - df + 0.5) / (df + 0.5))",
      terms: {
        N: "the searchable records of the workspace in the profile's text configuration",
        df: "how many of those records hold the term",
        tf: "the term's occurrences in the record's search vector",
        "|d|": "the record's lexeme occurrences (its search vector's length)",
        avgdl: "the mean |d| over the same records",
      },
      parameters: {
        k1: { default: DEFAULT_BM25.k1, ...BM25_LIMITS.k1, meaning: "term frequency saturation" },
        b: { default: DEFAULT_BM25.b, ...BM25_LIMITS.b, meaning: "document length normalization" },
      },
      normalization:
        "divided by sum idf(t) * (k1 + 1), the query's largest possible BM25, so that text_match lies in [0, 1]",
      range: [0, 1],
      phrase: "a quoted phrase is one term whose df is the number of records holding the phrase",
      statistics:
        "per workspace and text configuration, over its searchable records; no statistic crosses workspaces",
    },
    ts_rank_cd: {
      score: "PostgreSQL ts_rank_cd (cover density) of the record's search vector against the query",
      range: [0, null],
    },
    ties: "equal rank_score: newest seq first",
  };
}
