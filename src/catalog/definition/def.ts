import { INT4_MAX } from "../../platform/input.js";
import { type DefinitionCode, DefinitionError, type DefinitionPath } from "./definition-error.js";

/** Finds the 1-based line of a path inside its file, when the source is known. */
export type LineLocator = (path: DefinitionPath) => number | undefined;

interface StringRule {
  /** Default true: a string must contain something besides white space. */
  nonBlank?: boolean;
  pattern?: RegExp;
  patternHint?: string;
  maxLength?: number;
}

interface NumberRule {
  min?: number;
  max?: number;
  /** Lower bound that the value must exceed (min is inclusive). */
  above?: number;
}

export function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  if (typeof value === "string")
    return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  return `${typeof value} ${String(value)}`;
}

/**
 * A value inside a definition file, with its file and dotted path, so that every check can
 * refuse it precisely. Readers return plain values and throw DefinitionError on a mismatch.
 */
export class Def {
  constructor(
    readonly file: string,
    readonly path: DefinitionPath,
    readonly value: unknown,
    private readonly locate?: LineLocator,
  ) {}

  get present(): boolean {
    return this.value !== undefined;
  }

  at(key: string | number): Def {
    const value =
      this.value !== null && typeof this.value === "object"
        ? (this.value as Record<string | number, unknown>)[key]
        : undefined;
    return new Def(this.file, [...this.path, key], value, this.locate);
  }

  /** This value, or undefined when it is absent (a YAML null counts as a value). */
  maybe(): Def | undefined {
    return this.present ? this : undefined;
  }

  fail(detail: string, code: DefinitionCode = "definition_invalid"): never {
    const line = this.locate?.(this.path);
    throw new DefinitionError(code, this.file, this.path, line ? `${detail} (line ${line})` : detail);
  }

  private required(): void {
    if (!this.present) this.fail("is required");
  }

  /** A mapping with only the allowed keys and every required one. */
  fields(allowed: readonly string[], required: readonly string[] = []): void {
    this.required();
    if (this.value === null || typeof this.value !== "object" || Array.isArray(this.value)) {
      this.fail(`expected a mapping, got ${describe(this.value)}`);
    }
    for (const key of Object.keys(this.value as object)) {
      if (!allowed.includes(key))
        this.at(key).fail(`unknown field "${key}" (allowed: ${allowed.join(", ")})`);
    }
    for (const key of required) this.at(key).required();
  }

  /** The entries of a mapping whose keys are names. */
  entries(): [string, Def][] {
    this.required();
    if (this.value === null || typeof this.value !== "object" || Array.isArray(this.value)) {
      this.fail(`expected a mapping, got ${describe(this.value)}`);
    }
    return Object.keys(this.value as object).map((key) => [key, this.at(key)]);
  }

  string(rule: StringRule = {}): string {
    this.required();
    if (typeof this.value !== "string") this.fail(`expected a string, got ${describe(this.value)}`);
    const text = this.value as string;
    if ((rule.nonBlank ?? true) && text.trim() === "") this.fail("must not be blank");
    if (rule.maxLength !== undefined && text.length > rule.maxLength) {
      this.fail(`must be at most ${rule.maxLength} characters`);
    }
    if (rule.pattern && !rule.pattern.test(text)) {
      this.fail(`${describe(text)} is not ${rule.patternHint ?? `of the form ${rule.pattern}`}`);
    }
    return text;
  }

  oneOf<T extends string>(values: readonly T[]): T {
    this.required();
    if (typeof this.value !== "string" || !values.includes(this.value as T)) {
      this.fail(`expected one of ${values.join(", ")}, got ${describe(this.value)}`);
    }
    return this.value as T;
  }

  boolean(): boolean {
    this.required();
    if (typeof this.value !== "boolean") this.fail(`expected true or false, got ${describe(this.value)}`);
    return this.value as boolean;
  }

  number(rule: NumberRule = {}): number {
    this.required();
    if (typeof this.value !== "number" || !Number.isFinite(this.value)) {
      this.fail(`expected a number, got ${describe(this.value)}`);
    }
    const n = this.value as number;
    if (rule.min !== undefined && n < rule.min) this.fail(`must be at least ${rule.min}, got ${n}`);
    if (rule.max !== undefined && n > rule.max) this.fail(`must be at most ${rule.max}, got ${n}`);
    if (rule.above !== undefined && n <= rule.above)
      this.fail(`must be greater than ${rule.above}, got ${n}`);
    return n;
  }

  /** A whole number; without an explicit max, at most INT4_MAX (the columns definitions reach). */
  integer(rule: NumberRule = {}): number {
    const n = this.number({ max: INT4_MAX, ...rule });
    if (!Number.isInteger(n)) this.fail(`expected a whole number, got ${n}`);
    return n;
  }

  list(rule: { min?: number; max?: number } = {}): Def[] {
    this.required();
    if (!Array.isArray(this.value)) this.fail(`expected a list, got ${describe(this.value)}`);
    const items = this.value as unknown[];
    if (rule.min !== undefined && items.length < rule.min) {
      this.fail(rule.min === 1 ? "must not be empty" : `must have at least ${rule.min} entries`);
    }
    if (rule.max !== undefined && items.length > rule.max) this.fail(`must have at most ${rule.max} entries`);
    return items.map((_, index) => this.at(index));
  }

  /** A list of strings, unique unless allowDuplicates. */
  strings(rule: { min?: number; max?: number; allowDuplicates?: boolean; item?: StringRule } = {}): string[] {
    const items = this.list(rule);
    const seen = new Set<string>();
    return items.map((item) => {
      const text = item.string(rule.item);
      if (!rule.allowDuplicates && seen.has(text))
        item.fail(`duplicate entry "${text}"`, "definition_duplicate");
      seen.add(text);
      return text;
    });
  }
}
