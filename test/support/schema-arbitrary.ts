// fast-check arbitraries of values valid against a JSON Schema: what schemathesis generates
// from an OpenAPI document, for the subset of keywords our route schemas use (type, enum,
// const, properties, required, additionalProperties, items, length, range, pattern, format:
// date-time and uuid).
import fc from "fast-check";

type Schema = Record<string, any>;

// Generated collections stay small: the point is shape and edge values, not volume.
const MAX_ITEMS = 4;
const MAX_STRING = 40;

function stringOf(schema: Schema): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.max(minLength, Math.min(schema.maxLength ?? MAX_STRING, MAX_STRING));
  if (schema.format === "date-time") {
    return fc
      .date({
        min: new Date("0001-01-01T00:00:00Z"),
        max: new Date("9999-12-31T00:00:00Z"),
        noInvalidDate: true,
      })
      .map((d) => d.toISOString());
  }
  if (schema.format === "uuid") return fc.uuid();
  if (schema.pattern) {
    return fc
      .stringMatching(new RegExp(schema.pattern))
      .filter((s) => s.length >= minLength && s.length <= (schema.maxLength ?? Number.MAX_SAFE_INTEGER));
  }
  return fc.string({ unit: "grapheme", minLength, maxLength });
}

function integerOf(schema: Schema): fc.Arbitrary<number> {
  const min = Math.max(schema.minimum ?? -(2 ** 53 - 1), (schema.exclusiveMinimum ?? -(2 ** 53)) + 1);
  const max = Math.min(schema.maximum ?? 2 ** 53 - 1, (schema.exclusiveMaximum ?? 2 ** 53) - 1);
  // Edges are where parsers and columns break: give them weight beside the uniform draw.
  return fc.oneof(fc.constantFrom(min, max, Math.max(min, Math.min(max, 0))), fc.integer({ min, max }));
}

function objectOf(schema: Schema, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const required = new Set<string>(schema.required ?? []);
  const properties: Record<string, Schema> = schema.properties ?? {};
  const known = fc.record(
    Object.fromEntries(Object.entries(properties).map(([k, s]) => [k, schemaValue(s, depth + 1)])),
    { requiredKeys: [...required].filter((k) => k in properties) },
  );
  const extra = schema.additionalProperties;
  if (!extra || Object.keys(properties).length > 0) return known;
  const keys = schema.propertyNames
    ? stringOf(schema.propertyNames)
    : stringOf({ minLength: 1, maxLength: 12 });
  const values = extra === true ? fc.jsonValue({ maxDepth: 2 }) : schemaValue(extra, depth + 1);
  return fc.dictionary(keys, values, {
    minKeys: schema.minProperties ?? 0,
    maxKeys: Math.max(schema.minProperties ?? 0, Math.min(schema.maxProperties ?? MAX_ITEMS, MAX_ITEMS)),
  });
}

function ofType(type: string, schema: Schema, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case "string":
      return stringOf(schema);
    case "integer":
      return integerOf(schema);
    case "number":
      return fc.double({
        min: schema.minimum ?? -1e308,
        max: schema.maximum ?? 1e308,
        noNaN: true,
        noDefaultInfinity: true,
      });
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array": {
      const minLength = schema.minItems ?? 0;
      const maxLength = Math.max(minLength, Math.min(schema.maxItems ?? MAX_ITEMS, MAX_ITEMS));
      const items = schemaValue(schema.items ?? {}, depth + 1);
      return schema.uniqueItems
        ? fc.uniqueArray(items, { minLength, maxLength, selector: (v) => JSON.stringify(v) })
        : fc.array(items, { minLength, maxLength });
    }
    default:
      return objectOf(schema, depth);
  }
}

/** Values valid against `schema` (as far as the keywords above go). */
export function schemaValue(schema: Schema, depth = 0): fc.Arbitrary<unknown> {
  if ("const" in schema) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (!schema.type && !schema.properties) return fc.jsonValue({ maxDepth: 2 });
  const types: string[] = [schema.type ?? "object"].flat();
  return fc.oneof(...types.map((type) => ofType(type, schema, depth)));
}
