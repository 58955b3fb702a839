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
export const queryAjv = makeAjv("array", true);

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
    const message =
      error.keyword === "additionalProperties"
        ? "is not allowed"
        : error.keyword === "required"
          ? "is required"
          : (error.message ?? "is invalid");
    return { path, message };
  });
}

function unescapePointer(segment: string): string {
  return segment.replace(/~1/g, "/").replace(/~0/g, "~");
}
