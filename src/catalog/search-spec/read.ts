// Small readers for validating a request body: each records a problem under its dotted path
// and returns undefined, so that one pass reports every problem at once.
import type { FieldError } from "../../platform/errors.js";

export type Path = readonly (string | number)[];

export class Issues {
  readonly list: FieldError[] = [];
  add(path: Path, message: string): undefined {
    this.list.push({ path: path.join("."), message });
    return undefined;
  }
  get count(): number {
    return this.list.length;
  }
}

export type Obj = Record<string, unknown>;

export function isObject(value: unknown): value is Obj {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** A mapping with only the allowed keys (each unknown key is reported; the rest still read). */
export function readObject(
  value: unknown,
  path: Path,
  issues: Issues,
  allowed: readonly string[],
): Obj | undefined {
  if (!isObject(value)) return issues.add(path, "must be an object");
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) issues.add([...path, key], "is not allowed");
  }
  return value;
}

export function readInteger(
  value: unknown,
  path: Path,
  issues: Issues,
  min: number,
  max: number,
): number | undefined {
  if (typeof value !== "number" || !Number.isInteger(value)) return issues.add(path, "must be an integer");
  if (value < min || value > max) return issues.add(path, `must be between ${min} and ${max}`);
  return value;
}

/** A number greater than 0 (exclusive) and at most max. */
export function readPositive(value: unknown, path: Path, issues: Issues, max: number): number | undefined {
  if (typeof value !== "number" || !Number.isFinite(value)) return issues.add(path, "must be a number");
  if (value <= 0 || value > max) return issues.add(path, `must be greater than 0 and at most ${max}`);
  return value;
}

export function readBoolean(value: unknown, path: Path, issues: Issues): boolean | undefined {
  if (typeof value !== "boolean") return issues.add(path, "must be true or false");
  return value;
}

export function readString(
  value: unknown,
  path: Path,
  issues: Issues,
  rule: { max?: number; nonBlank?: boolean; pattern?: RegExp; hint?: string } = {},
): string | undefined {
  if (typeof value !== "string") return issues.add(path, "must be a string");
  if ((rule.nonBlank ?? true) && value.trim() === "") return issues.add(path, "must not be blank");
  if (rule.max !== undefined && [...value].length > rule.max) {
    return issues.add(path, `must be at most ${rule.max} characters`);
  }
  if (rule.pattern && !rule.pattern.test(value))
    return issues.add(path, `must be ${rule.hint ?? rule.pattern}`);
  return value;
}

export function readOneOf<T extends string>(
  value: unknown,
  path: Path,
  issues: Issues,
  values: readonly T[],
): T | undefined {
  if (typeof value !== "string" || !values.includes(value as T)) {
    return issues.add(path, `must be one of ${values.join(", ")}`);
  }
  return value as T;
}

/** A list of 1..max items; unique compares items by their JSON text. */
export function readList(
  value: unknown,
  path: Path,
  issues: Issues,
  rule: { max: number; min?: number; unique?: boolean },
): unknown[] | undefined {
  if (!Array.isArray(value)) return issues.add(path, "must be a list");
  const min = rule.min ?? 1;
  if (value.length < min)
    return issues.add(path, min === 1 ? "must not be empty" : `must have at least ${min} entries`);
  if (value.length > rule.max) return issues.add(path, `must have at most ${rule.max} entries`);
  if (rule.unique) {
    const seen = new Set<string>();
    let ok = true;
    value.forEach((item, i) => {
      const text = JSON.stringify(item);
      if (seen.has(text)) ok = issues.add([...path, i], `duplicate entry ${text}`) ?? false;
      seen.add(text);
    });
    if (!ok) return undefined;
  }
  return value;
}

/** A unique list of non-blank strings (non-empty unless min is 0). */
export function readStrings(
  value: unknown,
  path: Path,
  issues: Issues,
  rule: { max: number; min?: number; itemMax?: number; values?: readonly string[] },
): string[] | undefined {
  const list = readList(value, path, issues, { max: rule.max, min: rule.min, unique: true });
  if (!list) return undefined;
  const before = issues.count;
  list.forEach((item, i) => {
    if (rule.values) readOneOf(item, [...path, i], issues, rule.values);
    else readString(item, [...path, i], issues, { max: rule.itemMax ?? 256 });
  });
  return issues.count === before ? (list as string[]) : undefined;
}
