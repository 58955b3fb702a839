// The parts of a search request that depend on the catalog: scope and the collection versions
// it reads, the one place (profiles indexed alike) they resolve to, and declared fields (where,
// order_by).
import { INT4_MAX } from "../../platform/input.js";
import {
  type CatalogIndex,
  type CollectionDef,
  type FieldDecl,
  typeProblem as fits,
  indexPlace,
  isZonedTimestamp,
  ref,
  type ValueType,
} from "../definition/index.js";
import {
  type Issues,
  isObject,
  type Obj,
  type Path,
  readBoolean,
  readInteger,
  readList,
  readObject,
  readOneOf,
  readStrings,
} from "./read.js";

export interface Scope {
  collections?: string[];
  collection_versions?: Record<string, number[]>;
  entities?: string[];
  types?: string[];
  status: "active" | "draft" | "all";
  keyed: boolean | "any";
  versions: "current" | "all";
  occurred_after?: string;
  occurred_before?: string;
  depth_lte?: number;
}

/** One collection version a search reads. */
export interface Target {
  name: string;
  version: number;
}

export interface FieldCondition {
  eq?: unknown;
  in?: unknown[];
  gt?: number | string;
  gte?: number | string;
  lt?: number | string;
  lte?: number | string;
  exists?: boolean;
  contains_any?: string[];
  contains_all?: string[];
}

export interface OrderBy {
  field: string;
  direction: "asc" | "desc";
}

export const SCOPE_KEYS = [
  "collections",
  "collection_versions",
  "entities",
  "types",
  "status",
  "keyed",
  "versions",
  "occurred_after",
  "occurred_before",
  "depth_lte",
] as const;
export const SCOPE_LIST_MAX = 100;

export function parseScope(value: unknown, path: Path, issues: Issues): Scope {
  const scope: Scope = { status: "active", keyed: "any", versions: "current" };
  if (value === undefined) return scope;
  const src = readObject(value, path, issues, SCOPE_KEYS);
  if (!src) return scope;
  for (const list of ["collections", "entities", "types"] as const) {
    if (src[list] === undefined) continue;
    const items = readStrings(src[list], [...path, list], issues, { max: SCOPE_LIST_MAX });
    if (items) scope[list] = items;
  }
  if (src.collection_versions !== undefined) {
    const map = src.collection_versions;
    if (!isObject(map))
      issues.add([...path, "collection_versions"], "must be an object of collection name to versions");
    else {
      const pinned: Record<string, number[]> = {};
      for (const [name, versions] of Object.entries(map)) {
        const at = [...path, "collection_versions", name];
        if (src.collections === undefined) {
          issues.add(at, "collection_versions needs scope.collections naming the same collections");
        } else if (!scope.collections?.includes(name)) {
          issues.add(at, `collection "${name}" must also be listed in scope.collections`);
        }
        const list = readList(versions, at, issues, { max: SCOPE_LIST_MAX, unique: true });
        if (!list) continue;
        const before = issues.count;
        for (const [i, v] of list.entries()) readInteger(v, [...at, i], issues, 1, Number.MAX_SAFE_INTEGER);
        if (issues.count === before) pinned[name] = list as number[];
      }
      scope.collection_versions = pinned;
    }
  }
  if (src.status !== undefined) {
    scope.status =
      readOneOf(src.status, [...path, "status"], issues, ["active", "draft", "all"] as const) ?? "active";
  }
  if (src.keyed !== undefined) {
    if (src.keyed === "any" || typeof src.keyed === "boolean") scope.keyed = src.keyed;
    else issues.add([...path, "keyed"], "must be true, false or any");
  }
  if (src.versions !== undefined) {
    scope.versions =
      readOneOf(src.versions, [...path, "versions"], issues, ["current", "all"] as const) ?? "current";
  }
  for (const bound of ["occurred_after", "occurred_before"] as const) {
    if (src[bound] === undefined) continue;
    if (isZonedTimestamp(src[bound])) scope[bound] = src[bound];
    else issues.add([...path, bound], "must be an ISO 8601 timestamp with a timezone");
  }
  if (scope.occurred_after && scope.occurred_before) {
    if (Date.parse(scope.occurred_after) >= Date.parse(scope.occurred_before)) {
      issues.add([...path, "occurred_after"], "must be earlier than occurred_before");
    }
  }
  if (src.depth_lte !== undefined) {
    const depth = readInteger(src.depth_lte, [...path, "depth_lte"], issues, 0, INT4_MAX);
    if (depth !== undefined) scope.depth_lte = depth;
  }
  return scope;
}

function listedVersions(index: CatalogIndex, name: string): CollectionDef[] {
  return [...index.collections.values()].map((e) => e.def).filter((def) => def.name === name);
}

export function collectionDef(index: CatalogIndex, target: Target): CollectionDef {
  return (index.collections.get(ref(target.name, target.version)) as { def: CollectionDef }).def;
}

/**
 * The collection versions a search reads. Named collections: every listed version of each, or
 * the versions pinned in collection_versions. No collections named (only allowed outside
 * sources): every listed version of each collection that has an active listed version, except
 * reserved names starting with "_" (an empty scope means the ordinary collections).
 */
export function resolveTargets(
  scope: Scope,
  path: Path,
  issues: Issues,
  index: CatalogIndex,
  explicit: boolean,
): Target[] | undefined {
  const before = issues.count;
  const targets: Target[] = [];
  if (scope.collections) {
    scope.collections.forEach((name, i) => {
      const listed = listedVersions(index, name);
      if (listed.length === 0) {
        const defined = [...index.defined.collections].some((id) => id.startsWith(`${name}@`));
        issues.add(
          [...path, "collections", i],
          defined
            ? `collection "${name}" is not listed in the selected package`
            : `unknown collection "${name}"`,
        );
        return;
      }
      // Own keys only: a collection may be named like an Object member ("constructor").
      const versions = scope.collection_versions;
      const pinned = versions && Object.hasOwn(versions, name) ? versions[name] : undefined;
      if (!pinned) {
        for (const def of listed) targets.push({ name, version: def.version });
        return;
      }
      pinned.forEach((version, j) => {
        if (index.collections.has(ref(name, version))) targets.push({ name, version });
        else
          issues.add(
            [...path, "collection_versions", name, j],
            `collection ${ref(name, version)} is not listed`,
          );
      });
    });
  } else if (explicit) {
    issues.add([...path, "collections"], "is required: each source names its collections explicitly");
  } else {
    const names = new Set<string>();
    for (const { def } of index.collections.values())
      if (def.active && !def.name.startsWith("_")) names.add(def.name);
    for (const { def } of index.collections.values()) {
      if (names.has(def.name)) targets.push({ name: def.name, version: def.version });
    }
    if (targets.length === 0) issues.add(path, "no active collection to search");
  }
  if (issues.count !== before) return undefined;
  return targets.sort((a, b) => (a.name === b.name ? a.version - b.version : a.name < b.name ? -1 : 1));
}

/** The search profiles the targets are indexed in, sorted. */
export function targetProfiles(targets: Target[], index: CatalogIndex): string[] {
  return [...new Set(targets.map((t) => collectionDef(index, t).search_profile))].sort();
}

/**
 * The profile a search over the targets runs with: the first of their profiles, which must all
 * be one place (indexPlace: same engine, embedding, text configuration and ranking), so any of
 * them ranks every target alike. Profiles indexed differently cannot be searched together.
 */
export function resolveProfile(
  targets: Target[],
  path: Path,
  issues: Issues,
  index: CatalogIndex,
): string | undefined {
  const profiles = targetProfiles(targets, index);
  const places = new Set<string>();
  for (const profile of profiles) {
    const def = index.searchProfiles.get(profile)?.def;
    if (!def) return issues.add(path, `search profile "${profile}" is not available`);
    places.add(indexPlace(def));
  }
  if (places.size > 1) {
    return issues.add(
      path,
      `the collections span search profiles indexed differently (${profiles.join(", ")}: their engine, embedding, text_config or text_rank differ): name collections of one of them or split into sources`,
    );
  }
  return profiles[0];
}

const FLAG_WORD = { filter: "filterable", sort: "sortable", return: "returnable" } as const;

/**
 * The type of a declared field that every target declares with the flag and one same type;
 * reports the first target that does not.
 */
export function fieldType(
  name: string,
  flag: "filter" | "sort" | "return",
  targets: Target[],
  path: Path,
  issues: Issues,
  index: CatalogIndex,
): ValueType | undefined {
  const types = new Map<ValueType, string[]>();
  for (const target of targets) {
    const decl: FieldDecl | undefined = Object.hasOwn(collectionDef(index, target).fields, name)
      ? collectionDef(index, target).fields[name]
      : undefined;
    const id = ref(target.name, target.version);
    if (!decl) return issues.add(path, `field "${name}" is not declared in collection ${id}`);
    if (!decl[flag])
      return issues.add(path, `field "${name}" is not declared ${FLAG_WORD[flag]} in collection ${id}`);
    types.set(decl.type, [...(types.get(decl.type) ?? []), id]);
  }
  if (types.size > 1) {
    const described = [...types].map(([type, ids]) => `${type} in ${ids.join(", ")}`).join("; ");
    return issues.add(path, `field "${name}" has incompatible declarations: ${described}`);
  }
  return [...types.keys()][0];
}

export const CONDITIONS = [
  "eq",
  "in",
  "gt",
  "gte",
  "lt",
  "lte",
  "exists",
  "contains_any",
  "contains_all",
] as const;
export const VALUE_LIST_MAX = 100;

function readCondition(
  value: unknown,
  type: ValueType | undefined,
  path: Path,
  issues: Issues,
): FieldCondition | undefined {
  const src = readObject(value, path, issues, CONDITIONS);
  if (!src) return undefined;
  if (Object.keys(src).length === 0)
    return issues.add(path, `needs at least one condition (${CONDITIONS.join(", ")})`);
  if (!type) return undefined;
  const before = issues.count;
  const list = type === "string_array";
  const ordered = type === "number" || type === "integer" || type === "datetime";
  const out: Obj = {};
  for (const [name, v] of Object.entries(src)) {
    const at = [...path, name];
    if (!(CONDITIONS as readonly string[]).includes(name)) continue;
    if (name === "eq") {
      const wrong = fits(type, v);
      if (wrong) issues.add(at, wrong);
    } else if (name === "exists") {
      readBoolean(v, at, issues);
    } else if (name === "in") {
      if (list) {
        issues.add(at, "works on single values, not on list fields (use contains_any)");
        continue;
      }
      readList(v, at, issues, { max: VALUE_LIST_MAX })?.forEach((item, i) => {
        const wrong = fits(type, item);
        if (wrong) issues.add([...at, i], wrong);
      });
    } else if (name === "contains_any" || name === "contains_all") {
      if (!list) {
        issues.add(at, `works on list fields only, not on ${type}`);
        continue;
      }
      readList(v, at, issues, { max: VALUE_LIST_MAX })?.forEach((item, i) => {
        if (typeof item !== "string") issues.add([...at, i], "must be a string");
      });
    } else {
      if (!ordered) {
        issues.add(at, `works on numbers and timestamps only, not on ${type}`);
        continue;
      }
      const wrong = type === "datetime" ? fits("datetime", v) : fits("number", v);
      if (wrong) issues.add(at, wrong);
    }
    out[name] = v;
  }
  return issues.count === before ? (out as FieldCondition) : undefined;
}

/** where: declared filterable field to conditions, type-checked in every target. */
export function parseWhere(
  value: unknown,
  targets: Target[] | undefined,
  path: Path,
  issues: Issues,
  index: CatalogIndex,
): Record<string, FieldCondition> {
  const out: Record<string, FieldCondition> = {};
  if (value === undefined) return out;
  if (!isObject(value)) {
    issues.add(path, "must be an object of field to conditions");
    return out;
  }
  for (const [field, conditions] of Object.entries(value)) {
    const at = [...path, field];
    const type = targets ? fieldType(field, "filter", targets, at, issues, index) : undefined;
    const condition = readCondition(conditions, type, at, issues);
    if (condition) out[field] = condition;
  }
  return out;
}

export const ORDER_MAX = 8;

/** order_by: up to 8 unique sortable fields, direction asc (default) or desc. */
export function parseOrderBy(
  value: unknown,
  targets: Target[] | undefined,
  path: Path,
  issues: Issues,
  index: CatalogIndex,
): OrderBy[] {
  const list = readList(value, path, issues, { max: ORDER_MAX });
  if (!list) return [];
  const out: OrderBy[] = [];
  const seen = new Set<string>();
  list.forEach((item, i) => {
    const src = readObject(item, [...path, i], issues, ["field", "direction"]);
    if (!src) return;
    if (typeof src.field !== "string" || src.field === "") {
      issues.add([...path, i, "field"], src.field === undefined ? "is required" : "must be a field name");
      return;
    }
    if (seen.has(src.field)) issues.add([...path, i, "field"], `duplicate field "${src.field}"`);
    seen.add(src.field);
    if (targets) fieldType(src.field, "sort", targets, [...path, i, "field"], issues, index);
    const direction =
      src.direction === undefined
        ? "asc"
        : readOneOf(src.direction, [...path, i, "direction"], issues, ["asc", "desc"] as const);
    if (direction) out.push({ field: src.field, direction });
  });
  return out;
}
