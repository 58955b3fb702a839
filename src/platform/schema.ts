import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";

export type { ValidateFunction };

import addFormats from "ajv-formats";
import type { FieldError } from "./errors.js";

function makeAjv(coerceTypes: boolean | "array", useDefaults: boolean): Ajv2020 {
  // allErrors: a client fixing a request wants every problem at once, not one per try.
  const ajv = new Ajv2020({ allErrors: true, strict: false, coerceTypes, useDefaults });
  addFormats.default(ajv);
  return ajv;
}

/** Validates JSON bodies and definitions as written: no coercion, no removal, no defaults. */
export const ajv = makeAjv(false, false);

/**
 * Query strings arrive as text: "5" must satisfy an integer, and a lone value a list; their
 * declared defaults are filled in.
 */
const queryAjv = makeAjv("array", true);

/**
 * An integer written as text (a query string, a path parameter, an artifact's query argument) is
 * plain decimal digits (docs/api.md "Request rules"): Ajv's coercion alone would also read
 * "1e2", "0x10", " 10" and "10.0" as integers.
 */
export const PLAIN_INTEGER = /^-?[0-9]+$/;

type PropertySchema = { type?: unknown; items?: PropertySchema } | undefined;

const holdsIntegers = (schema: PropertySchema): boolean =>
  [schema?.type].flat().includes("integer") || (schema?.type === "array" && holdsIntegers(schema.items));

/** Refusals of the integer properties sent as anything but plain decimal text. */
function notPlainIntegers(data: unknown, names: string[]): ErrorObject[] {
  if (typeof data !== "object" || data === null) return [];
  return names
    .filter((name) => Object.hasOwn(data, name))
    .filter((name) =>
      [(data as Record<string, unknown>)[name]]
        .flat()
        .some((value) => typeof value !== "string" || !PLAIN_INTEGER.test(value)),
    )
    .map((name) => ({
      keyword: "type",
      instancePath: `/${name.replace(/~/g, "~0").replace(/\//g, "~1")}`,
      schemaPath: `#/properties/${name}`,
      params: {},
      message: "must be an integer in plain decimal digits",
    }));
}

/**
 * Compiles the schema of a query string or of path parameters: Ajv with coercion and defaults,
 * after one rule for every integer among them (PLAIN_INTEGER), so no route checks its own.
 */
export function compileQuerySchema(schema: object): ValidateFunction {
  const validate = queryAjv.compile(schema);
  const { properties } = schema as { properties?: Record<string, PropertySchema> };
  const integers = Object.entries(properties ?? {})
    .filter(([, property]) => holdsIntegers(property))
    .map(([name]) => name);
  if (integers.length === 0) return validate;
  const checked = (data: unknown) => {
    const refused = notPlainIntegers(data, integers);
    validate(data);
    // One error per field: a refused integer's own Ajv error ("must be integer") adds nothing.
    const others = (validate.errors ?? []).filter(
      (e) => !refused.some((r) => r.instancePath === e.instancePath),
    );
    const errors = [...refused, ...others];
    checked.errors = errors.length > 0 ? errors : null;
    return errors.length === 0;
  };
  checked.errors = null as ErrorObject[] | null;
  return checked as unknown as ValidateFunction;
}

const cache = new WeakMap<object, ValidateFunction>();

/** Compiles a schema once per schema object. */
export function compileSchema(schema: object): ValidateFunction {
  let validate = cache.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    cache.set(schema, validate);
  }
  return validate;
}

/** A field's dotted path ("records.0.entity") under an optional prefix ("querystring"). */
export function dottedPath(prefix: string, segments: (string | number)[]): string {
  return [prefix, ...segments.map(String)].filter((part) => part !== "").join(".");
}

/** Turns Ajv errors into {path, message} items with dotted paths ("records.0.entity"). */
export function toFieldErrors(errors: ErrorObject[] | null | undefined, prefix = ""): FieldError[] {
  return (errors ?? []).map((error) => {
    const segments = error.instancePath.split("/").slice(1).map(unescapePointer);
    const params = error.params as Record<string, unknown>;
    const named = params.missingProperty ?? params.additionalProperty ?? params.propertyName;
    if (typeof named === "string") segments.push(named);
    const path = dottedPath(prefix, segments);
    return { path, message: fieldMessage(error, params) };
  });
}

/** Ajv's message, with the values an enum or const allows spelled out (a client can correct itself). */
function fieldMessage(error: ErrorObject, params: Record<string, unknown>): string {
  if (error.keyword === "additionalProperties") return "is not allowed";
  if (error.keyword === "required") return "is required";
  if (error.keyword === "enum" && Array.isArray(params.allowedValues)) {
    return `must be one of ${params.allowedValues.map((value) => JSON.stringify(value)).join(", ")}`;
  }
  if (error.keyword === "const") return `must be ${JSON.stringify(params.allowedValue)}`;
  return error.message ?? "is invalid";
}

function unescapePointer(segment: string): string {
  return segment.replace(/~1/g, "/").replace(/~0/g, "~");
}
