// LangGraph's search filter, checked against an item's value here: Engram can only filter on
// fields a collection declares, and a store's values have no fixed fields. Each key names a
// top-level field of the value; its condition is a value (equal to it) or operators ($eq, $ne,
// $gt, $gte, $lt, $lte, $in, $nin), all of which must hold.

const OPERATORS = new Set(["$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin"]);

function isOperators(condition: unknown): condition is Record<string, unknown> {
  if (typeof condition !== "object" || condition === null || Array.isArray(condition)) return false;
  const keys = Object.keys(condition);
  return keys.length > 0 && keys.every((key) => OPERATORS.has(key));
}

/** Deep equality of JSON values (LangGraph compares objects and lists by content). */
function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const aKeys = Object.keys(a);
  const bKeys = Object.keys(b);
  if (aKeys.length !== bKeys.length) return false;
  return aKeys.every(
    (key) =>
      Object.hasOwn(b, key) &&
      equal((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
  );
}

/** An ordering comparison: strings against strings, anything else as numbers (as LangGraph's stores). */
function compare(a: unknown, b: unknown): number {
  if (typeof a === "string" && typeof b === "string") return a < b ? -1 : a > b ? 1 : 0;
  return Number(a) - Number(b);
}

function holds(operator: string, actual: unknown, expected: unknown): boolean {
  switch (operator) {
    case "$eq":
      return equal(actual, expected);
    case "$ne":
      return !equal(actual, expected);
    case "$gt":
      return actual !== undefined && compare(actual, expected) > 0;
    case "$gte":
      return actual !== undefined && compare(actual, expected) >= 0;
    case "$lt":
      return actual !== undefined && compare(actual, expected) < 0;
    case "$lte":
      return actual !== undefined && compare(actual, expected) <= 0;
    case "$in":
      return Array.isArray(expected) && expected.some((option) => equal(actual, option));
    case "$nin":
      return !Array.isArray(expected) || !expected.some((option) => equal(actual, option));
    default:
      return false;
  }
}

/** Whether an item's value satisfies a LangGraph filter (no filter: every value does). */
export function matchesFilter(value: Record<string, unknown>, filter?: Record<string, unknown>): boolean {
  if (!filter) return true;
  return Object.entries(filter).every(([field, condition]) => {
    const actual = value[field];
    if (!isOperators(condition)) return equal(actual, condition);
    return Object.entries(condition).every(([operator, expected]) => holds(operator, actual, expected));
  });
}
