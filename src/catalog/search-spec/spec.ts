// The search request (docs/api.md, "`POST /search`: the SearchSpec"): a pure validation against the
// selected catalog that returns the normalized request (defaults filled, collections resolved)
// or refuses it with 422 request_schema listing every problem under a dotted path.
//
// Shapes the spec leaves open ("not shown"), fixed here:
// - rerank: {model: a model alias of conf/models.yaml (required), top_n: integer 1..100
//   (default k)}. Needs a non-empty q. Not allowed in structured mode (custom ranking).
// - graph_boost: {anchor: string 1..128 (required), graph: the name of an active graph view
//   (optional when exactly one is active), depth: integer 1..16 (default 1), weight: number
//   > 0 and <= 100 (default 1.0)}. Not allowed in structured mode.
// - fence: {tag: element name (default "records"), preamble: string up to 2,000 characters}.
// - With sources, a top-level params.candidates is the default for every source that sets no
//   params of its own; otherwise a search's default is min(1000, max(100, base * k / 20)), base
//   being conf/rank.yaml's candidates (shipped 200: the spec's min(1000, max(100, 10 * k))).
// - boost only with sources (it applies after merging); fuse only with sources.
// - order_by only in structured mode (where it is required); up to 8 unique fields.
// - Scope lists may not be empty (leave the key out, or the view parameter, to mean "all").
//   include, fields and annotations may be empty ("up to 16": an empty list asks for nothing).
// - hybrid mode needs the vector and text capabilities, vector needs vector, text text,
//   recent recent, structured structured (profileCapabilities).
// - Score names in rank and boost: the names of listed processors of kind score.
import { validationError } from "../../platform/errors.js";
import {
  type Capability,
  type CatalogIndex,
  isZonedTimestamp,
  parseRankExpression,
  profileCapabilities,
  type RankContext,
  type RankNode,
  SEARCH_MODES,
  type SearchMode,
} from "../definition/index.js";
import { INCLUDE_FIELDS, type IncludeField } from "./include.js";
import {
  Issues,
  type Obj,
  type Path,
  readBoolean,
  readInteger,
  readList,
  readObject,
  readOneOf,
  readPositive,
  readString,
  readStrings,
} from "./read.js";
import {
  collectionDef,
  type FieldCondition,
  fieldType,
  type OrderBy,
  parseOrderBy,
  parseScope,
  parseWhere,
  resolveProfile,
  resolveTargets,
  type Scope,
  type Target,
} from "./scope.js";

/** One search: the whole request without sources, or one source. */
export interface SearchPart {
  mode: SearchMode;
  scope: Scope;
  where: Record<string, FieldCondition>;
  /** Empty unless structured. */
  order_by: OrderBy[];
  /** A custom formula; absent means the catalog's default for the mode (none for structured). */
  rank?: RankNode;
  params: { candidates: number };
  k: number;
  /** Resolved: the collection versions read (sorted) and the one profile they are indexed in. */
  targets: Target[];
  profile: string;
  /** The request's as_of (docs/api.md "Memory over time"): memory as it was then; every part shares it. */
  as_of?: string;
}

export interface SourceSpec extends SearchPart {
  name: string;
  weight: number;
}

export interface Fence {
  tag: string;
  preamble?: string;
}

export interface Rerank {
  model: string;
  top_n: number;
}

export interface GraphBoost {
  anchor: string;
  graph?: string;
  depth: number;
  weight: number;
}

interface SearchSpecCommon {
  q?: string;
  k: number;
  include: IncludeField[];
  fields: string[];
  annotations: string[];
  render: boolean;
  fence?: Fence;
  rerank?: Rerank;
  graph_boost?: GraphBoost;
  /** Each hit explains its ranking (src/search/explain.ts); set only when asked for. */
  explain?: true;
}

export interface SingleSearchSpec extends SearchSpecCommon, SearchPart {
  sources?: undefined;
}

export interface CombinedSearchSpec extends SearchSpecCommon {
  mode?: undefined;
  scope?: undefined;
  where?: undefined;
  order_by?: undefined;
  rank?: undefined;
  params?: undefined;
  targets?: undefined;
  profile?: undefined;
  sources: SourceSpec[];
  fuse: { kind: "rrf"; rank_constant: number };
  boost?: RankNode;
}

export type SearchSpec = SingleSearchSpec | CombinedSearchSpec;

export interface SearchLimits {
  maxQueryChars: number;
}

/** The searches a request runs: itself, or its sources in order. */
export function searchParts(spec: SearchSpec): SearchPart[] {
  return spec.sources ? spec.sources : [spec];
}

export const PART_KEYS = ["mode", "scope", "where", "order_by", "rank", "params", "k"] as const;
export const TOP_KEYS = [
  "q",
  ...PART_KEYS,
  "include",
  "fields",
  "annotations",
  "render",
  "fence",
  "rerank",
  "graph_boost",
  "sources",
  "fuse",
  "boost",
  "explain",
  "as_of",
] as const;
export const SOURCE_KEYS = ["name", "weight", ...PART_KEYS] as const;
const QUERY_MODES: readonly SearchMode[] = ["vector", "text", "hybrid"];
const MODE_NEEDS: Record<SearchMode, Capability[]> = {
  vector: ["vector"],
  text: ["text"],
  hybrid: ["vector", "text"],
  recent: ["recent"],
  structured: ["structured"],
};
export const NAMES_MAX = 16;
/** Numeric bounds of the request, shared by the readers and the published schema. */
export const SEARCH_BOUNDS = {
  k: 100,
  candidates: 1000,
  sources: 8,
  sourceName: 64,
  weight: 100,
  rankConstant: 1000,
  topN: 100,
  anchor: 128,
  graphDepth: 16,
  preamble: 2000,
} as const;
export const FENCE_TAG = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;

/**
 * params.candidates by default: the rank file's base count at the default k of 20, scaled with
 * k and kept within 100..1000. With the shipped base of 200 this is the spec's
 * min(1000, max(100, 10 * k)).
 */
export function defaultCandidates(k: number, base: number): number {
  return Math.min(1000, Math.max(100, Math.round((base * k) / 20)));
}

/** Stored score names the catalog produces: listed processors of kind score. */
export function catalogScoreNames(index: CatalogIndex): Set<string> {
  const names = new Set<string>();
  for (const [name, entry] of index.processors) if (entry.def.kind === "score") names.add(name);
  return names;
}

class RankIssue {
  constructor(
    readonly path: Path,
    readonly message: string,
  ) {}
}

function readRank(value: unknown, path: Path, issues: Issues, ctx: RankContext): RankNode | undefined {
  try {
    return parseRankExpression(
      value,
      (at, detail) => {
        throw new RankIssue([...path, ...at], detail);
      },
      ctx,
    );
  } catch (error) {
    if (error instanceof RankIssue) return issues.add(error.path, error.message);
    throw error;
  }
}

function readParams(value: unknown, path: Path, issues: Issues): number | undefined {
  const src = readObject(value, path, issues, ["candidates"]);
  if (!src || src.candidates === undefined) return undefined;
  return readInteger(src.candidates, [...path, "candidates"], issues, 1, SEARCH_BOUNDS.candidates);
}

interface PartContext {
  index: CatalogIndex;
  issues: Issues;
  scoreNames: Set<string>;
  /** Sources name their collections explicitly. */
  explicit: boolean;
  k: number;
  candidates?: number;
}

function readPart(src: Obj, path: Path, ctx: PartContext): SearchPart | undefined {
  const { index, issues } = ctx;
  const before = issues.count;
  const mode =
    src.mode === undefined
      ? issues.add([...path, "mode"], "is required")
      : readOneOf(src.mode, [...path, "mode"], issues, SEARCH_MODES);
  const candidates =
    (src.params !== undefined ? readParams(src.params, [...path, "params"], issues) : undefined) ??
    ctx.candidates ??
    defaultCandidates(ctx.k, index.rank.candidates);
  const scope = parseScope(src.scope, [...path, "scope"], issues);
  const targets = resolveTargets(scope, [...path, "scope"], issues, index, ctx.explicit);
  let profile: string | undefined;
  if (targets) {
    profile = resolveProfile(targets, [...path, "scope"], issues, index);
    const profileEntry = profile ? index.searchProfiles.get(profile) : undefined;
    const offered = profileEntry ? profileCapabilities(profileEntry.def) : undefined;
    const missing = mode && offered ? MODE_NEEDS[mode].filter((c) => !offered.has(c)) : [];
    if (missing.length) {
      issues.add(
        [...path, "mode"],
        `${mode} mode needs the ${missing.join(" and ")} capability, which search profile "${profile}" lacks`,
      );
    }
  }
  const where = parseWhere(src.where, targets, [...path, "where"], issues, index);
  let order_by: OrderBy[] = [];
  if (mode === "structured") {
    if (src.order_by === undefined) issues.add([...path, "order_by"], "is required in structured mode");
    else order_by = parseOrderBy(src.order_by, targets, [...path, "order_by"], issues, index);
    if (src.rank !== undefined)
      issues.add([...path, "rank"], "custom ranking is not allowed in structured mode");
  } else if (src.order_by !== undefined) {
    issues.add([...path, "order_by"], "is only allowed in structured mode");
  }
  let rank: RankNode | undefined;
  if (src.rank !== undefined && mode && mode !== "structured") {
    rank = readRank(src.rank, [...path, "rank"], issues, { mode, scoreNames: ctx.scoreNames });
  }
  if (issues.count !== before || !mode || !targets || !profile) return undefined;
  const part: SearchPart = {
    mode,
    scope,
    where,
    order_by,
    params: { candidates },
    k: ctx.k,
    targets,
    profile,
  };
  if (rank) part.rank = rank;
  return part;
}

function readFence(value: unknown, issues: Issues): Fence | undefined {
  const src = readObject(value, ["fence"], issues, ["tag", "preamble"]);
  if (!src) return undefined;
  const fence: Fence = { tag: "records" };
  if (src.tag !== undefined) {
    const tag = readString(src.tag, ["fence", "tag"], issues, {
      pattern: FENCE_TAG,
      hint: "an element name (letters, digits, _ . -; at most 64)",
    });
    if (tag) fence.tag = tag;
  }
  if (src.preamble !== undefined) {
    const preamble = readString(src.preamble, ["fence", "preamble"], issues, {
      max: SEARCH_BOUNDS.preamble,
      nonBlank: false,
    });
    if (preamble !== undefined) fence.preamble = preamble;
  }
  return fence;
}

function readRerank(value: unknown, k: number, index: CatalogIndex, issues: Issues): Rerank | undefined {
  const src = readObject(value, ["rerank"], issues, ["model", "top_n"]);
  if (!src) return undefined;
  let model: string | undefined;
  if (src.model === undefined) issues.add(["rerank", "model"], "is required");
  else {
    model = readString(src.model, ["rerank", "model"], issues);
    const alias = model === undefined ? undefined : index.models.def.aliases[model];
    if (model !== undefined && (alias?.kind !== "model" || !Object.hasOwn(index.models.def.aliases, model))) {
      model = issues.add(["rerank", "model"], `"${model}" is not a model alias of conf/models.yaml`);
    }
  }
  const top_n =
    src.top_n === undefined
      ? Math.min(k, SEARCH_BOUNDS.topN)
      : readInteger(src.top_n, ["rerank", "top_n"], issues, 1, SEARCH_BOUNDS.topN);
  return model !== undefined && top_n !== undefined ? { model, top_n } : undefined;
}

function readGraphBoost(value: unknown, index: CatalogIndex, issues: Issues): GraphBoost | undefined {
  const path = ["graph_boost"];
  const src = readObject(value, path, issues, ["anchor", "graph", "depth", "weight"]);
  if (!src) return undefined;
  const before = issues.count;
  const anchor =
    src.anchor === undefined
      ? issues.add([...path, "anchor"], "is required")
      : readString(src.anchor, [...path, "anchor"], issues, { max: SEARCH_BOUNDS.anchor });
  const depth =
    src.depth === undefined
      ? 1
      : readInteger(src.depth, [...path, "depth"], issues, 1, SEARCH_BOUNDS.graphDepth);
  const weight =
    src.weight === undefined
      ? 1
      : readPositive(src.weight, [...path, "weight"], issues, SEARCH_BOUNDS.weight);
  const graphs = [...index.views.values()]
    .filter((e) => e.def.kind === "graph" && e.def.active)
    .map((e) => e.def.name);
  let graph: string | undefined;
  if (src.graph !== undefined) {
    graph = readString(src.graph, [...path, "graph"], issues);
    if (graph !== undefined && !graphs.includes(graph))
      issues.add([...path, "graph"], `no active graph view "${graph}"`);
  } else if (graphs.length !== 1) {
    issues.add(
      path,
      graphs.length
        ? `several graph views are active (${graphs.sort().join(", ")}): name one in graph`
        : "needs an active graph view",
    );
  }
  if (issues.count !== before) return undefined;
  const boost: GraphBoost = { anchor: anchor as string, depth: depth as number, weight: weight as number };
  if (graph !== undefined) boost.graph = graph;
  return boost;
}

/** What validateSearchSpec's steps read the request against and report into. */
interface SpecContext {
  index: CatalogIndex;
  issues: Issues;
  scoreNames: Set<string>;
}

/** The request's options that apply to the whole search, with or without sources. */
type SpecOptions = Omit<SearchSpecCommon, "fence" | "rerank" | "graph_boost" | "explain"> & {
  explain: boolean;
  fence?: Fence;
  rerank?: Rerank;
  graphBoost?: GraphBoost;
};

/** The searches of a request and the spec they make, when every part read. */
interface ReadSearches {
  parts: SearchPart[];
  spec?: SearchSpec;
}

function readOptions(root: Obj, ctx: SpecContext, limits: SearchLimits): SpecOptions {
  const { index, issues } = ctx;
  const k = root.k === undefined ? 20 : (readInteger(root.k, ["k"], issues, 1, SEARCH_BOUNDS.k) ?? 20);
  let q: string | undefined;
  if (root.q !== undefined) {
    q = readString(root.q, ["q"], issues, { nonBlank: false, max: limits.maxQueryChars });
  }
  const include =
    root.include === undefined
      ? []
      : ((readStrings(root.include, ["include"], issues, {
          max: INCLUDE_FIELDS.length,
          values: INCLUDE_FIELDS,
          min: 0,
        }) ?? []) as IncludeField[]);
  const fields =
    root.fields === undefined
      ? []
      : (readStrings(root.fields, ["fields"], issues, { max: NAMES_MAX, min: 0 }) ?? []);
  const annotations =
    root.annotations === undefined
      ? []
      : (readStrings(root.annotations, ["annotations"], issues, { max: NAMES_MAX, min: 0 }) ?? []);
  const render = root.render === undefined ? false : (readBoolean(root.render, ["render"], issues) ?? false);
  const explain =
    root.explain === undefined ? false : (readBoolean(root.explain, ["explain"], issues) ?? false);
  const fence = root.fence === undefined ? undefined : readFence(root.fence, issues);
  if (root.fence !== undefined && !render) issues.add(["fence"], "needs render: true");
  const rerank = root.rerank === undefined ? undefined : readRerank(root.rerank, k, index, issues);
  const graphBoost =
    root.graph_boost === undefined ? undefined : readGraphBoost(root.graph_boost, index, issues);
  return { k, q, include, fields, annotations, render, explain, fence, rerank, graphBoost };
}

function readFuse(value: unknown, issues: Issues): CombinedSearchSpec["fuse"] | undefined {
  const src = readObject(value, ["fuse"], issues, ["kind", "rank_constant"]);
  if (!src) return undefined;
  const kind =
    src.kind === undefined
      ? issues.add(["fuse", "kind"], "is required")
      : readOneOf(src.kind, ["fuse", "kind"], issues, ["rrf"] as const);
  const rankConstant =
    src.rank_constant === undefined
      ? 60
      : readInteger(src.rank_constant, ["fuse", "rank_constant"], issues, 1, SEARCH_BOUNDS.rankConstant);
  return kind && rankConstant !== undefined ? { kind, rank_constant: rankConstant } : undefined;
}

/** Each source of `sources`, named uniquely; every part read goes to `parts`, named or not. */
function readSources(
  value: unknown,
  ctx: SpecContext & { candidates?: number; parts: SearchPart[] },
): SourceSpec[] {
  const { issues } = ctx;
  const sources: SourceSpec[] = [];
  const names = new Set<string>();
  readList(value, ["sources"], issues, { max: SEARCH_BOUNDS.sources })?.forEach((item, i) => {
    const path = ["sources", i];
    const src = readObject(item, path, issues, SOURCE_KEYS);
    if (!src) return;
    const name =
      src.name === undefined
        ? issues.add([...path, "name"], "is required")
        : readString(src.name, [...path, "name"], issues, { max: SEARCH_BOUNDS.sourceName });
    if (name !== undefined && names.has(name))
      issues.add([...path, "name"], `duplicate source name "${name}"`);
    if (name !== undefined) names.add(name);
    const weight =
      src.weight === undefined
        ? 1
        : readPositive(src.weight, [...path, "weight"], issues, SEARCH_BOUNDS.weight);
    const sourceK = src.k === undefined ? 20 : readInteger(src.k, [...path, "k"], issues, 1, SEARCH_BOUNDS.k);
    const part = readPart(src, path, {
      index: ctx.index,
      issues,
      scoreNames: ctx.scoreNames,
      explicit: true,
      k: sourceK ?? 20,
      candidates: ctx.candidates,
    });
    if (part && name !== undefined && weight !== undefined) sources.push({ name, weight, ...part });
    if (part) ctx.parts.push(part);
  });
  return sources;
}

/** A request with sources: each source searches on its own, and fuse combines them. */
function readCombined(root: Obj, options: SpecOptions, ctx: SpecContext): ReadSearches {
  const { issues, scoreNames } = ctx;
  for (const key of ["mode", "scope", "where", "order_by", "rank"] as const) {
    if (root[key] !== undefined) issues.add([key], "must not be set with sources (set it on each source)");
  }
  const candidates = root.params === undefined ? undefined : readParams(root.params, ["params"], issues);
  let fuse: CombinedSearchSpec["fuse"] | undefined;
  if (root.fuse === undefined) issues.add(["fuse"], "is required with sources");
  else fuse = readFuse(root.fuse, issues);
  const parts: SearchPart[] = [];
  const sources = readSources(root.sources, { ...ctx, candidates, parts });
  const boost =
    root.boost === undefined
      ? undefined
      : readRank(root.boost, ["boost"], issues, { boost: true, scoreNames });
  if (!fuse) return { parts };
  const { k, include, fields, annotations, render } = options;
  const spec: CombinedSearchSpec = { k, include, fields, annotations, render, sources, fuse };
  if (boost) spec.boost = boost;
  return { parts, spec };
}

/** A request without sources: one search, where custom ranking needs a ranked mode. */
function readSingle(root: Obj, options: SpecOptions, ctx: SpecContext): ReadSearches {
  const { issues } = ctx;
  for (const key of ["fuse", "boost"] as const) {
    if (root[key] !== undefined) issues.add([key], "is only allowed with sources");
  }
  const part = readPart(root, [], { ...ctx, explicit: false, k: options.k });
  if (!part) return { parts: [] };
  const { include, fields, annotations, render } = options;
  if (part.mode === "structured") {
    if (options.rerank) issues.add(["rerank"], "custom ranking is not allowed in structured mode");
    if (options.graphBoost) issues.add(["graph_boost"], "custom ranking is not allowed in structured mode");
  }
  return { parts: [part], spec: { ...part, include, fields, annotations, render } };
}

/** as_of: an ISO 8601 timestamp with a timezone, within years 1 to 9999 (isZonedTimestamp). */
function readAsOf(value: unknown, issues: Issues): string | undefined {
  if (value === undefined) return undefined;
  if (isZonedTimestamp(value)) return value;
  return issues.add(["as_of"], "must be an ISO 8601 timestamp with a timezone (like 2026-11-20T09:30:00Z)");
}

/** Vector, text and hybrid searches and a rerank need a non-empty q. */
function checkQuery(root: Obj, parts: SearchPart[], options: SpecOptions, issues: Issues): void {
  const { q, rerank } = options;
  const modes = parts.map((p) => p.mode);
  if (
    modes.some((m) => QUERY_MODES.includes(m)) &&
    (q === undefined || q.trim() === "") &&
    !issues.list.some((e) => e.path === "q")
  ) {
    issues.add(
      ["q"],
      `is required and must not be empty for ${root.sources !== undefined ? "sources using vector, text or hybrid" : `${modes[0]} mode`}`,
    );
  }
  const flagged = (path: string) => issues.list.some((e) => e.path === path);
  if (rerank && (q === undefined || q.trim() === "") && !flagged("q") && !flagged("rerank")) {
    issues.add(["rerank"], "needs a non-empty q for the model to judge the results against");
  }
}

/**
 * Returned fields and annotations hold in every collection version searched; checked once every
 * part resolved its targets.
 */
function checkOutputs(root: Obj, parts: SearchPart[], options: SpecOptions, ctx: SpecContext): void {
  const { index, issues } = ctx;
  const targets = parts.flatMap((p) => p.targets);
  const searches = root.sources !== undefined ? (root.sources as unknown[]).length : 1;
  if (!targets.length || parts.length !== searches) return;
  for (const [i, field] of options.fields.entries())
    fieldType(field, "return", targets, ["fields", i], issues, index);
  options.annotations.forEach((name, i) => {
    const missing = targets.find((t) => !collectionDef(index, t).required_processors.includes(name));
    if (missing) {
      issues.add(
        ["annotations", i],
        `"${name}" is not a required processor of collection ${missing.name}@${missing.version}`,
      );
    }
  });
}

function refuse(issues: Issues): never {
  const summary = issues.list
    .slice(0, 3)
    .map((e) => `${e.path || "(body)"}: ${e.message}`)
    .join("; ");
  throw validationError(
    `invalid search request: ${summary}${issues.count > 3 ? `; and ${issues.count - 3} more` : ""}`,
    issues.list,
  );
}

/**
 * Validates a search request against the catalog. Pure: reads nothing but its arguments.
 * Throws validationError (422 request_schema) with every problem found.
 */
export function validateSearchSpec(input: unknown, index: CatalogIndex, limits: SearchLimits): SearchSpec {
  const issues = new Issues();
  const root = readObject(input, [], issues, TOP_KEYS);
  if (!root) throw validationError("the search request must be a JSON object", issues.list);
  const ctx: SpecContext = { index, issues, scoreNames: catalogScoreNames(index) };
  const options = readOptions(root, ctx, limits);
  const { parts, spec } =
    root.sources !== undefined ? readCombined(root, options, ctx) : readSingle(root, options, ctx);
  checkQuery(root, parts, options, issues);
  checkOutputs(root, parts, options, ctx);
  const asOf = readAsOf(root.as_of, issues);
  if (issues.count || !spec) refuse(issues);
  if (asOf !== undefined) for (const part of searchParts(spec)) part.as_of = asOf;
  if (options.q !== undefined) spec.q = options.q;
  if (options.fence) spec.fence = options.fence;
  if (options.rerank) spec.rerank = options.rerank;
  if (options.graphBoost) spec.graph_boost = options.graphBoost;
  if (options.explain) spec.explain = true;
  return spec;
}
