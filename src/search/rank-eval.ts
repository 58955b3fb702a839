// Rank expression evaluation (docs/api.md, "Rank expressions", "The search response"): pure
// functions over a candidate pool, no database.
//
// A parsed RankNode compiles once into a column-wise evaluator: every node yields one value per
// candidate of the pool (a Float64Array), so normalize is a plain pool-level pass over its
// child's column and nests freely. Compiled evaluators are cached per node object.
//
// explainRank (a search's `explain: true`) runs the same compiled walk with every node's column
// recorded, and gives each candidate's expression tree with the value of every node; the
// evaluator used without explain records nothing.
//
// Decisions the spec leaves open:
// - A missing signal is 0: similarity / text_match absent (or not a number), a score name the
//   record does not carry, an unreadable timestamp.
// - [age_hours, last_accessed] of a record never returned by a search (last_accessed null)
//   counts from created_at: a never-accessed record is as fresh as it is new, rather than
//   infinitely old (which would zero its decay) or brand new (which would favour it forever).
// - A future timestamp counts 0 hours.
// - Every node's output is made finite: NaN becomes 0, +/-Infinity the largest finite double of
//   that sign, so rank_score is always a finite number and ordering survives overflow.
// - saturate is computed as 1 / (1 + (m/x)^e) (0 at x = 0) and decay as 1 / (1 + (x/m)^e):
//   algebraically the spec's formulas, without Infinity / Infinity for large x.
import type { AgeField, RankNode } from "../catalog/index.js";
import type { Candidate } from "./types.js";

/** The rank_score of every candidate of a pool, in pool order. */
export type CompiledRank = (pool: readonly Candidate[], now: Date) => number[];

interface EvalContext {
  pool: readonly Candidate[];
  n: number;
  nowMs: number;
  /** explainRank: each node's column, by the node's slot (traced evaluators only). */
  trace?: Float64Array[];
}

type Column = (ctx: EvalContext) => Float64Array;

const MAX = Number.MAX_VALUE;
const HOUR_MS = 3_600_000;

/** NaN to 0, infinities to the largest finite double of their sign. */
function finite(x: number): number {
  if (Number.isNaN(x)) return 0;
  if (x === Number.POSITIVE_INFINITY) return MAX;
  if (x === Number.NEGATIVE_INFINITY) return -MAX;
  return x;
}

function signal(value: unknown): number {
  if (typeof value === "number") return finite(value);
  if (typeof value === "string" && value.trim() !== "") return finite(Number(value));
  return 0;
}

function timeMs(value: unknown): number {
  if (value instanceof Date) return value.getTime();
  if (typeof value === "string") return Date.parse(value);
  return Number.NaN;
}

function ageTimestamp(c: Candidate, field: AgeField): unknown {
  if (field === "last_accessed") return c.last_accessed ?? c.created_at;
  return c[field];
}

/** [age_hours, field] of one candidate: hours since the timestamp; future or unreadable is 0. */
function ageHours(c: Candidate, field: AgeField, nowMs: number): number {
  const hours = (nowMs - timeMs(ageTimestamp(c, field))) / HOUR_MS;
  return hours > 0 ? finite(hours) : 0; // future counts 0; NaN (unreadable) is missing: 0
}

/** [score, name] of one candidate: a name the record does not carry is 0. */
function storedScore(c: Candidate, name: string): number {
  return c.scores && Object.hasOwn(c.scores, name) ? signal(c.scores[name]) : 0;
}

/** The smallest and largest value of a non-empty column. */
function columnRange(values: Float64Array): { min: number; max: number } {
  let min = values[0] as number;
  let max = min;
  for (let i = 1; i < values.length; i++) {
    const v = values[i] as number;
    if (v < min) min = v;
    else if (v > max) max = v;
  }
  return { min, max };
}

/** (x - min) / (max - min) over a column; all ties 0. Written in place. */
function normalizeColumn(values: Float64Array): Float64Array {
  const n = values.length;
  if (n === 0) return values;
  const { min, max } = columnRange(values);
  if (max === min) return values.fill(0);
  let span = max - min;
  if (Number.isFinite(span)) {
    for (let i = 0; i < n; i++) values[i] = ((values[i] as number) - min) / span;
  } else {
    // max - min overflowed (values near +/-MAX): the same ratio on halves.
    span = max / 2 - min / 2;
    for (let i = 0; i < n; i++) values[i] = ((values[i] as number) / 2 - min / 2) / span;
  }
  return values;
}

function leaf(read: (c: Candidate, nowMs: number) => number): Column {
  return ({ pool, n, nowMs }) => {
    const out = new Float64Array(n);
    for (let i = 0; i < n; i++) out[i] = read(pool[i] as Candidate, nowMs);
    return out;
  };
}

function map(child: Column, f: (x: number) => number): Column {
  return (ctx) => {
    const values = child(ctx);
    for (let i = 0; i < ctx.n; i++) values[i] = finite(f(values[i] as number));
    return values;
  };
}

/** A node of a traced evaluator (explainRank): the node and the slots of its children. */
interface TraceSlot {
  node: RankNode;
  children: number[];
}

/**
 * The column of a node. Traced (`slots` given), every node takes the next slot in preorder and
 * its column is recorded in ctx.trace before its parent reads (and overwrites) it.
 */
function compileColumn(node: RankNode, slots?: TraceSlot[]): Column {
  const slot = slots ? slots.push({ node, children: [] }) - 1 : -1;
  const child = (c: RankNode): Column => {
    if (slots) (slots[slot] as TraceSlot).children.push(slots.length);
    return compileColumn(c, slots);
  };
  const column = nodeColumn(node, child);
  if (!slots) return column;
  return (ctx) => {
    const values = column(ctx);
    if (ctx.trace) ctx.trace[slot] = Float64Array.from(values);
    return values;
  };
}

function nodeColumn(node: RankNode, child: (node: RankNode) => Column): Column {
  switch (node[0]) {
    case "similarity":
      return leaf((c) => signal(c.similarity));
    case "text_match":
      return leaf((c) => signal(c.text_match));
    case "score": {
      const name = node[1];
      return leaf((c) => storedScore(c, name));
    }
    case "age_hours": {
      const field = node[1];
      return leaf((c, nowMs) => ageHours(c, field, nowMs));
    }
    case "const": {
      const value = finite(node[1]);
      return ({ n }) => new Float64Array(n).fill(value);
    }
    case "sum":
    case "max": {
      const children = node[1].map(child);
      const isSum = node[0] === "sum";
      const [first, ...rest] = children;
      if (!first) return ({ n }) => new Float64Array(n); // the parser refuses empty lists
      return (ctx) => {
        const out = first(ctx);
        for (const next of rest) {
          const values = next(ctx);
          for (let i = 0; i < ctx.n; i++) {
            const a = out[i] as number;
            const b = values[i] as number;
            out[i] = isSum ? finite(a + b) : b > a ? b : a;
          }
        }
        return out;
      };
    }
    case "product": {
      const factor = node[1];
      return map(child(node[2]), (x) => factor * x);
    }
    case "normalize": {
      const column = child(node[1]);
      return (ctx) => normalizeColumn(column(ctx));
    }
    case "saturate": {
      const { midpoint: m, exponent: e } = node[2];
      return map(child(node[1]), (x) => (x > 0 ? 1 / (1 + (m / x) ** e) : 0));
    }
    case "decay": {
      const { midpoint: m, exponent: e } = node[2];
      return map(child(node[1]), (x) => (x > 0 ? 1 / (1 + (x / m) ** e) : 1));
    }
    default: {
      const unknown: never = node;
      throw new Error(`unknown rank operator ${JSON.stringify((unknown as unknown[])[0])}`);
    }
  }
}

/** The rank_score of every candidate: the root's column, made finite. */
function evaluate(column: Column, ctx: EvalContext): number[] {
  const values = column(ctx);
  const out = new Array<number>(ctx.n);
  for (let i = 0; i < ctx.n; i++) out[i] = finite(values[i] as number);
  return out;
}

const compiled = new WeakMap<RankNode, CompiledRank>();

/** Compiles a rank expression once into an evaluator over a whole pool (cached per node). */
export function compileRank(node: RankNode): CompiledRank {
  let fn = compiled.get(node);
  if (!fn) {
    const column = compileColumn(node);
    fn = (pool, now) =>
      pool.length === 0 ? [] : evaluate(column, { pool, n: pool.length, nowMs: now.getTime() });
    compiled.set(node, fn);
  }
  return fn;
}

/** The rank_score of each candidate, in pool order; normalize spans the whole pool. */
export function evaluateRank(node: RankNode, pool: readonly Candidate[], now: Date): number[] {
  return compileRank(node)(pool, now);
}

/**
 * One node of an explained rank expression with its value for one candidate. Signals are
 * `{signal, value}` (with `name` for score, `field` for age_hours), constants `{const, value}`,
 * operators `{op, value, args}` with their options (product: factor; saturate and decay:
 * midpoint, exponent; normalize: the min and max of its argument across the pool).
 */
export interface RankTree {
  op?: string;
  signal?: string;
  const?: number;
  name?: string;
  field?: string;
  factor?: number;
  midpoint?: number;
  exponent?: number;
  min?: number;
  max?: number;
  value: number;
  args?: RankTree[];
  [more: string]: unknown;
}

export interface RankExplanation {
  /** The rank_score of each candidate, in pool order (what evaluateRank returns). */
  values: number[];
  /** The expression of candidate `i` (a pool index) with each node's value; the root's is values[i]. */
  tree(i: number): RankTree;
}

const traced = new WeakMap<RankNode, { column: Column; slots: TraceSlot[] }>();

/** What a node is, without its value: the JSON form of the spec's list node. */
function describe(node: RankNode, argument: Float64Array | undefined): Omit<RankTree, "value"> {
  switch (node[0]) {
    case "similarity":
    case "text_match":
      return { signal: node[0] };
    case "score":
      return { signal: "score", name: node[1] };
    case "age_hours":
      return { signal: "age_hours", field: node[1] };
    case "const":
      return { const: node[1] };
    case "sum":
    case "max":
      return { op: node[0] };
    case "product":
      return { op: "product", factor: node[1] };
    case "normalize":
      return { op: "normalize", ...(argument && argument.length > 0 ? columnRange(argument) : {}) };
    case "saturate":
    case "decay":
      return { op: node[0], midpoint: node[2].midpoint, exponent: node[2].exponent };
  }
}

/**
 * evaluateRank with every node's value kept: the same compiled walk, traced. For explain only
 * (it copies each node's column); trees are built on demand, for the candidates shown.
 */
export function explainRank(node: RankNode, pool: readonly Candidate[], now: Date): RankExplanation {
  let compiledTrace = traced.get(node);
  if (!compiledTrace) {
    const slots: TraceSlot[] = [];
    compiledTrace = { column: compileColumn(node, slots), slots };
    traced.set(node, compiledTrace);
  }
  const { column, slots } = compiledTrace;
  const trace: Float64Array[] = [];
  const values =
    pool.length === 0 ? [] : evaluate(column, { pool, n: pool.length, nowMs: now.getTime(), trace });
  const described = slots.map((s) => describe(s.node, trace[s.children[0] ?? -1]));
  const tree = (slot: number, i: number): RankTree => {
    const { children } = slots[slot] as TraceSlot;
    const value = slot === 0 ? (values[i] as number) : ((trace[slot] as Float64Array)[i] as number);
    const out: RankTree = { ...described[slot], value };
    if (children.length > 0) out.args = children.map((c) => tree(c, i));
    return out;
  };
  return {
    values,
    tree: (i) => {
      if (!(i >= 0 && i < values.length)) throw new RangeError(`explainRank: no candidate ${i}`);
      return tree(0, i);
    },
  };
}

/** What a candidate's rank can read (explain's `signals`): query signals are null when absent. */
export interface Signals {
  similarity: number | null;
  text_match: number | null;
  age_hours: Record<AgeField, number>;
  scores: Record<string, number>;
}

/** The signals of a candidate as the rank leaves read them (age_hours of last_accessed included). */
export function candidateSignals(c: Candidate, now: Date): Signals {
  const nowMs = now.getTime();
  const present = (value: unknown) => (value === undefined || value === null ? null : signal(value));
  return {
    similarity: present(c.similarity),
    text_match: present(c.text_match),
    age_hours: {
      created_at: ageHours(c, "created_at", nowMs),
      occurred_at: ageHours(c, "occurred_at", nowMs),
      last_accessed: ageHours(c, "last_accessed", nowMs),
    },
    scores: Object.fromEntries(Object.keys(c.scores ?? {}).map((name) => [name, storedScore(c, name)])),
  };
}

/**
 * The display score: min-max projection of rank_score over the whole pool into [0,1]. The top is
 * always exactly 1.0; when every value ties (or there is one) every score is 1.0.
 */
export function minMaxScores(values: readonly number[]): number[] {
  const n = values.length;
  if (n === 0) return [];
  const xs = values.map(finite);
  let min = xs[0] as number;
  let max = min;
  for (const x of xs) {
    if (x < min) min = x;
    if (x > max) max = x;
  }
  if (max === min) return xs.map(() => 1);
  const column = normalizeColumn(Float64Array.from(xs));
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    const x = xs[i] as number;
    out[i] = x === max ? 1 : Math.min(1, Math.max(0, column[i] as number));
  }
  return out;
}

/**
 * Pool indices ordered by value, highest first; ties go to the newer record (higher seq), then
 * the smaller id (plain code-unit comparison), so the order never depends on the pool's order.
 */
export function orderByRank(pool: readonly Candidate[], values: readonly number[]): number[] {
  if (values.length !== pool.length) {
    throw new RangeError(`orderByRank: ${values.length} values for ${pool.length} candidates`);
  }
  const vs = values.map(finite);
  const indices = Array.from({ length: pool.length }, (_, i) => i);
  return indices.sort((a, b) => {
    const va = vs[a] as number;
    const vb = vs[b] as number;
    if (va !== vb) return vb > va ? 1 : -1;
    const ca = pool[a] as Candidate;
    const cb = pool[b] as Candidate;
    if (ca.seq !== cb.seq) return cb.seq > ca.seq ? 1 : -1;
    if (ca.id !== cb.id) return ca.id < cb.id ? -1 : 1;
    return a - b;
  });
}
