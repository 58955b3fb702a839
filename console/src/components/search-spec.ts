// A SearchSpec (docs/api.md "`POST /search`: the SearchSpec") as the form edits it: a plain JSON
// object read key by key and rewritten as a new object on every change, so keys the form has no
// control for stay as they are.
import type { SearchSpec } from "../types";

export const MODES = ["hybrid", "vector", "text", "recent", "structured"] as const;
export { INCLUDE_FIELDS as INCLUDE } from "../../../src/catalog/search-spec/include";

/** The keys a single search and each source share (docs/api.md "Sources, fuse and boost", rule 2). */
const PART_KEYS = ["mode", "scope", "where", "order_by", "rank", "params"] as const;

export type Obj = Record<string, unknown>;

export interface FieldInfo {
  type: string;
  filter?: boolean;
  sort?: boolean;
  return?: boolean;
}

/** What the form offers from the workspace's catalog (GET /collections, GET /rank/schema). */
export interface SearchCatalog {
  collections: { name: string; fields: Record<string, FieldInfo> }[];
  /** The active default rank formula of each mode. */
  formulas: Record<string, unknown>;
  scores: string[];
}

export function isObject(value: unknown): value is Obj {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** `obj` with `key` set, or removed when `value` is undefined or an empty object. */
export function withKey(obj: Obj, key: string, value: unknown): Obj {
  const next = { ...obj };
  if (value === undefined || (isObject(value) && Object.keys(value).length === 0)) delete next[key];
  else next[key] = value;
  return next;
}

export const asObject = (value: unknown): Obj => (isObject(value) ? value : {});
export const asString = (value: unknown): string | undefined =>
  typeof value === "string" ? value : undefined;
export const asNumber = (value: unknown): number | undefined =>
  typeof value === "number" ? value : undefined;
export const asStrings = (value: unknown): string[] | undefined =>
  Array.isArray(value) ? value.map((v) => String(v)) : undefined;

/**
 * The value and onChange props that bind an input to one key of `obj`: the key's value read as
 * text, a number, a list of names or as it is, and a change written back through `onChange` as a
 * new object (without the key once the input is cleared).
 */
export function keyBinder(obj: Obj, onChange: (next: Obj) => void) {
  const bind =
    <T>(read: (value: unknown) => T | undefined) =>
    (key: string) => ({
      value: read(obj[key]),
      onChange: (value: T | undefined) => onChange(withKey(obj, key, value)),
    });
  return {
    text: bind(asString),
    number: bind(asNumber),
    list: bind(asStrings),
    raw: bind((value: unknown) => value),
  };
}

/** Field names of the collections in scope (every collection when none is named) that allow `use`. */
export function fieldNames(catalog: SearchCatalog, scope: Obj, use: "filter" | "sort" | "return"): string[] {
  const named = asStrings(scope.collections);
  const names = new Set<string>();
  for (const c of catalog.collections) {
    if (named && !named.includes(c.name)) continue;
    for (const [name, field] of Object.entries(c.fields)) if (field[use]) names.add(name);
  }
  return [...names].sort();
}

/** Moves the single search into one source (or back), so the spec stays valid either way. */
export function toggleSources(spec: SearchSpec, on: boolean): SearchSpec {
  if (on) {
    const source: Obj = { name: "main" };
    let next: Obj = { ...spec };
    for (const key of PART_KEYS) {
      if (spec[key] !== undefined) source[key] = spec[key];
      delete next[key];
    }
    source.mode ??= "hybrid";
    next = withKey(next, "sources", [source]);
    return withKey(next, "fuse", { kind: "rrf", rank_constant: 60 });
  }
  const first = asObject(Array.isArray(spec.sources) ? spec.sources[0] : undefined);
  const next: Obj = { ...spec };
  delete next.sources;
  delete next.fuse;
  delete next.boost;
  for (const key of PART_KEYS) if (first[key] !== undefined) next[key] = first[key];
  next.mode ??= "hybrid";
  return next;
}
