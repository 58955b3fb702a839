// The parameter model of views and artifacts (docs/catalog.md, "Parameters"): load-time parsing of
// declarations, request-time validation of arguments, the generated JSON Schema and the sample
// arguments a view's load check renders its template with.
import { type FieldError, validationError } from "../../platform/errors.js";
import { PLAIN_INTEGER } from "../../platform/schema.js";
import type { Def } from "./def.js";
import { VALUE_TYPES, type ValueType } from "./types.js";

export interface ParamDecl {
  type: ValueType;
  required: boolean;
  default?: unknown;
  description?: string;
  enum?: unknown[];
  item_enum?: string[];
  minimum?: number;
  maximum?: number;
  min_length?: number;
  max_length?: number;
  min_items?: number;
  max_items?: number;
}

/** Plain identifiers: what a placeholder can name and a tool schema can carry. */
export const PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

const DECL_KEYS = [
  "type",
  "required",
  "default",
  "description",
  "enum",
  "item_enum",
  "minimum",
  "maximum",
  "min_length",
  "max_length",
  "min_items",
  "max_items",
] as const;

/** Which types each constraint applies to; any other type refuses it. */
const CONSTRAINT_TYPES: Record<string, readonly ValueType[]> = {
  item_enum: ["string_array"],
  minimum: ["number", "integer"],
  maximum: ["number", "integer"],
  min_length: ["string"],
  max_length: ["string"],
  min_items: ["string_array"],
  max_items: ["string_array"],
};

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

// Instants PostgreSQL stores as written: from year 1 to year 9999, in UTC.
const FIRST_INSTANT = new Date(0).setUTCFullYear(1, 0, 1);
const LAST_INSTANT = Date.parse("9999-12-31T23:59:59.999Z");

/**
 * An RFC 3339 timestamp that carries its timezone (Z or an offset), names a real calendar day
 * and time, and falls within years 1 to 9999 in UTC (outside them PostgreSQL would refuse it or
 * read it as another instant).
 */
export function isZonedTimestamp(value: unknown): value is string {
  if (typeof value !== "string" || !TIMESTAMP.test(value)) return false;
  const [date] = value.split(/[Tt]/);
  const [y, m, d] = (date as string).split("-").map(Number) as [number, number, number];
  // setUTCFullYear, because Date.UTC reads years 0-99 as 1900-1999.
  const day = new Date(0);
  day.setUTCFullYear(y, m - 1, d);
  if (day.getUTCFullYear() !== y || day.getUTCMonth() !== m - 1 || day.getUTCDate() !== d) return false;
  const instant = Date.parse(value);
  return !Number.isNaN(instant) && instant >= FIRST_INSTANT && instant <= LAST_INSTANT;
}

/** A stable text form for comparing values (enum membership and uniqueness). */
function key(value: unknown): string {
  return JSON.stringify(value);
}

/** Why a value does not have a value type, or undefined when it does. */
export function typeProblem(type: ValueType, value: unknown): string | undefined {
  switch (type) {
    case "string":
      return typeof value === "string" ? undefined : "must be a string";
    case "number":
      return typeof value === "number" && Number.isFinite(value) ? undefined : "must be a number";
    case "integer":
      return typeof value === "number" && Number.isInteger(value) ? undefined : "must be an integer";
    case "boolean":
      return typeof value === "boolean" ? undefined : "must be true or false";
    case "datetime":
      return isZonedTimestamp(value) ? undefined : "must be an ISO 8601 timestamp with a timezone";
    case "string_array":
      return Array.isArray(value) && value.every((item) => typeof item === "string")
        ? undefined
        : "must be a list of strings";
  }
}

/**
 * Why a value does not satisfy a declaration, or undefined when it does. Checks the type and
 * every constraint; skipEnum leaves out the enum (used while checking the enum's own entries).
 */
export function valueProblem(decl: ParamDecl, value: unknown, skipEnum = false): string | undefined {
  const wrong = typeProblem(decl.type, value);
  if (wrong) return wrong;
  if (!skipEnum && decl.enum && !decl.enum.some((allowed) => key(allowed) === key(value))) {
    return `must be one of ${decl.enum.map(key).join(", ")}`;
  }
  if (typeof value === "number") {
    if (decl.minimum !== undefined && value < decl.minimum) return `must be at least ${decl.minimum}`;
    if (decl.maximum !== undefined && value > decl.maximum) return `must be at most ${decl.maximum}`;
  }
  if (typeof value === "string" && decl.type === "string") {
    const length = [...value].length;
    if (decl.min_length !== undefined && length < decl.min_length) {
      return `must be at least ${decl.min_length} characters`;
    }
    if (decl.max_length !== undefined && length > decl.max_length) {
      return `must be at most ${decl.max_length} characters`;
    }
  }
  if (Array.isArray(value)) {
    if (decl.min_items !== undefined && value.length < decl.min_items) {
      return `must have at least ${decl.min_items} items`;
    }
    if (decl.max_items !== undefined && value.length > decl.max_items) {
      return `must have at most ${decl.max_items} items`;
    }
    const items = decl.item_enum;
    if (items) {
      const bad = value.find((item) => !items.includes(item as string));
      if (bad !== undefined) return `item ${key(bad)} is not one of ${items.map(key).join(", ")}`;
    }
  }
  return undefined;
}

function parseDecl(src: Def): ParamDecl {
  src.fields(DECL_KEYS, ["type"]);
  const type = src.at("type").oneOf(VALUE_TYPES);
  const decl: ParamDecl = { type, required: src.at("required").maybe()?.boolean() ?? false };
  for (const [constraint, types] of Object.entries(CONSTRAINT_TYPES)) {
    const at = src.at(constraint);
    if (at.present && !types.includes(type)) {
      at.fail(`${constraint} applies to ${types.join(" and ")} parameters only, not ${type}`);
    }
  }
  const description = src.at("description").maybe();
  if (description) decl.description = description.string();

  // Bounds first: the enum and the default are checked against them.
  const whole = type === "integer";
  const bound = (name: "minimum" | "maximum") => {
    const at = src.at(name).maybe();
    if (!at) return undefined;
    return whole ? at.integer() : at.number();
  };
  const minimum = bound("minimum");
  const maximum = bound("maximum");
  if (minimum !== undefined) decl.minimum = minimum;
  if (maximum !== undefined) decl.maximum = maximum;
  if (minimum !== undefined && maximum !== undefined && minimum > maximum) {
    src.at("minimum").fail(`minimum ${minimum} exceeds maximum ${maximum}`);
  }
  for (const [low, high] of [
    ["min_length", "max_length"],
    ["min_items", "max_items"],
  ] as const) {
    const lo = src.at(low).maybe()?.integer({ min: 0 });
    const hi = src.at(high).maybe()?.integer({ min: 0 });
    if (lo !== undefined) decl[low] = lo;
    if (hi !== undefined) decl[high] = hi;
    if (lo !== undefined && hi !== undefined && lo > hi)
      src.at(low).fail(`${low} ${lo} exceeds ${high} ${hi}`);
  }

  const itemEnum = src.at("item_enum").maybe();
  if (itemEnum) decl.item_enum = itemEnum.strings({ min: 1, item: { nonBlank: false } });

  const enumDef = src.at("enum").maybe();
  if (enumDef) {
    const seen = new Set<string>();
    decl.enum = enumDef.list({ min: 1 }).map((item) => {
      const problem = valueProblem(decl, item.value, true);
      if (problem) item.fail(`enum value ${problem}`);
      if (seen.has(key(item.value)))
        item.fail(`duplicate enum value ${key(item.value)}`, "definition_duplicate");
      seen.add(key(item.value));
      return item.value;
    });
  }

  const fallback = src.at("default");
  if (fallback.present) {
    if (decl.required) fallback.fail("a required parameter may not declare a default");
    const problem = valueProblem(decl, fallback.value);
    if (problem) fallback.fail(`the default ${problem}`);
    decl.default = fallback.value;
  }
  return decl;
}

/** Parses a `parameters` mapping (name to declaration); an absent mapping declares none. */
export function parseParameters(src: Def): Record<string, ParamDecl> {
  if (!src.present) return {};
  const out: Record<string, ParamDecl> = {};
  for (const [name, decl] of src.entries()) {
    if (!PARAM_NAME.test(name)) {
      decl.fail(`parameter name "${name}" is not a plain identifier (letters, digits, _; at most 64)`);
    }
    // Assigning it would replace the map's prototype and silently drop the declaration.
    if (name === "__proto__") decl.fail(`parameter name "${name}" is reserved`);
    out[name] = parseDecl(decl);
  }
  return out;
}

/**
 * Checks request arguments against the declarations: unknown, missing required, wrongly typed
 * and out-of-range values are refused (422 request_schema, every problem listed). Defaults are
 * applied; an omitted optional parameter without default stays absent. Nothing is coerced.
 */
export function validateArguments(params: Record<string, ParamDecl>, args: unknown): Record<string, unknown> {
  const input = args === undefined ? {} : args;
  if (input === null || typeof input !== "object" || Array.isArray(input)) {
    throw validationError("parameters must be a JSON object", [{ path: "", message: "must be an object" }]);
  }
  const given = input as Record<string, unknown>;
  const errors: FieldError[] = [];
  for (const name of Object.keys(given)) {
    if (!Object.hasOwn(params, name)) errors.push({ path: name, message: "is not a parameter" });
  }
  const out: Record<string, unknown> = {};
  for (const [name, decl] of Object.entries(params)) {
    // Own keys only: an omitted parameter named like an Object member (constructor) is absent.
    const value = Object.hasOwn(given, name) ? given[name] : undefined;
    if (value === undefined) {
      if (decl.required) errors.push({ path: name, message: "is required" });
      else if (decl.default !== undefined) out[name] = structuredClone(decl.default);
      continue;
    }
    const problem = valueProblem(decl, value);
    if (problem) errors.push({ path: name, message: problem });
    else out[name] = value;
  }
  if (errors.length) {
    throw validationError(
      `invalid parameters: ${errors.map((e) => `${e.path}: ${e.message}`).join("; ")}`,
      errors,
    );
  }
  return out;
}

/** The JSON Schema of one declaration (draft 2020-12). */
export function paramSchema(decl: ParamDecl): Record<string, unknown> {
  const schema: Record<string, unknown> = {};
  switch (decl.type) {
    case "datetime":
      Object.assign(schema, { type: "string", format: "date-time" });
      break;
    case "string_array":
      schema.type = "array";
      schema.items = decl.item_enum ? { type: "string", enum: decl.item_enum } : { type: "string" };
      break;
    default:
      schema.type = decl.type;
  }
  if (decl.description !== undefined) schema.description = decl.description;
  if (decl.enum) schema.enum = decl.enum;
  if (decl.minimum !== undefined) schema.minimum = decl.minimum;
  if (decl.maximum !== undefined) schema.maximum = decl.maximum;
  if (decl.min_length !== undefined) schema.minLength = decl.min_length;
  if (decl.max_length !== undefined) schema.maxLength = decl.max_length;
  if (decl.min_items !== undefined) schema.minItems = decl.min_items;
  if (decl.max_items !== undefined) schema.maxItems = decl.max_items;
  if (decl.default !== undefined) schema.default = decl.default;
  return schema;
}

/** The input schema of a view or artifact: an object of its parameters, nothing else. */
export function parametersInputSchema(params: Record<string, ParamDecl>): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const [name, decl] of Object.entries(params)) properties[name] = paramSchema(decl);
  return {
    type: "object",
    properties,
    additionalProperties: false,
    required: Object.entries(params)
      .filter(([, decl]) => decl.required)
      .map(([name]) => name),
  };
}

/** The compact map of `GET /views`: type, required and default per parameter. */
export function compactParameters(
  params: Record<string, ParamDecl>,
): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [name, decl] of Object.entries(params)) {
    out[name] = { type: decl.type, required: decl.required };
    if (decl.default !== undefined) out[name].default = decl.default;
  }
  return out;
}

function sampleNumber(decl: ParamDecl): number {
  // 1 rather than 0: numbers usually land in k, depth or limit, whose floor is 1.
  if (decl.minimum !== undefined) return decl.minimum;
  if (decl.maximum !== undefined && decl.maximum < 1) return decl.maximum;
  return 1;
}

/**
 * One valid value per parameter: its default, else its first enum value, else a value built to
 * satisfy every constraint. Datetimes without default get increasing instants in declaration
 * order (a pair declared as since, until renders as a valid window).
 */
export function sampleArguments(params: Record<string, ParamDecl>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let instant = 0;
  for (const [name, decl] of Object.entries(params)) {
    if (decl.default !== undefined) out[name] = structuredClone(decl.default);
    else if (decl.enum?.length) out[name] = structuredClone(decl.enum[0]);
    else {
      switch (decl.type) {
        case "string": {
          const length = Math.min(
            Math.max(decl.min_length ?? 1, 1),
            decl.max_length ?? Number.POSITIVE_INFINITY,
          );
          out[name] = "s".repeat(length);
          break;
        }
        case "number":
        case "integer":
          out[name] = sampleNumber(decl);
          break;
        case "boolean":
          out[name] = false;
          break;
        case "datetime":
          out[name] = new Date(Date.UTC(2000, 0, 1 + instant++)).toISOString().replace(".000Z", "Z");
          break;
        case "string_array": {
          const count = Math.min(
            Math.max(decl.min_items ?? 1, 1),
            decl.max_items ?? Number.POSITIVE_INFINITY,
          );
          const pool = decl.item_enum;
          out[name] = Array.from({ length: count }, (_, i) =>
            pool ? pool[i % pool.length] : `sample${i + 1}`,
          );
          break;
        }
      }
    }
  }
  return out;
}

const QUERY_NUMBER = /^-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/**
 * Arguments given as query parameters (GET /artifacts/{name}), read by each declaration's type:
 * numbers and booleans from their text, a string_array from repeated or single values. Text
 * that does not read as its type is passed on as text, so validateArguments names the problem.
 */
export function queryArguments(
  params: Record<string, ParamDecl>,
  query: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, raw] of Object.entries(query)) {
    const decl = Object.hasOwn(params, name) ? params[name] : undefined;
    let value = raw;
    if (decl?.type === "string_array") value = Array.isArray(raw) ? raw : [raw];
    else if (decl && typeof raw === "string") {
      // An integer is plain decimal, as in every query string (src/platform/schema.ts).
      const numeric =
        decl.type === "integer" ? PLAIN_INTEGER : decl.type === "number" ? QUERY_NUMBER : undefined;
      if (numeric?.test(raw)) value = Number(raw);
      else if (decl.type === "boolean" && (raw === "true" || raw === "false")) value = raw === "true";
    }
    // Defined, not assigned: `out.__proto__ = ...` would set the prototype, and an unknown
    // `__proto__` parameter would vanish instead of being refused.
    Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}
