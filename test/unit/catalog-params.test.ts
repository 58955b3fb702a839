import { describe, expect, it } from "vitest";
import { Def } from "../../src/catalog/definition/def.js";
import { compactParameters, parseParameters, sampleArguments } from "../../src/catalog/definition/params.js";
import { isZonedTimestamp, parametersInputSchema, validateArguments } from "../../src/catalog/index.js";
import { ajv } from "../../src/platform/schema.js";
import { definitionError, requestError } from "../support/catalog-index-fixture.js";

const parse = (value: unknown) => parseParameters(new Def("views/x.yaml", ["views", 0, "parameters"], value));
const refuse = (value: unknown) => definitionError(() => parse(value));

describe("parseParameters", () => {
  it("refuses the parameter name __proto__ instead of silently dropping it", () => {
    const value = JSON.parse('{"__proto__": {"type": "string", "required": true}}');
    expect(refuse(value).extra.path).toBe("views.0.parameters.__proto__");
  });

  it("parses every field of the parameter model", () => {
    const params = parse({
      who: { type: "string", required: true, description: "entity", min_length: 1, max_length: 64 },
      k: { type: "integer", default: 5, minimum: 1, maximum: 100 },
      w: { type: "number", minimum: 0.5 },
      tags: { type: "string_array", item_enum: ["a", "b"], min_items: 1, max_items: 2, default: ["a"] },
      mode: { type: "string", enum: ["x", "y"], default: "x" },
      since: { type: "datetime" },
      flag: { type: "boolean", default: false },
    });
    expect(params.who).toEqual({
      type: "string",
      required: true,
      description: "entity",
      min_length: 1,
      max_length: 64,
    });
    expect(params.k).toEqual({ type: "integer", required: false, default: 5, minimum: 1, maximum: 100 });
    expect(params.tags?.item_enum).toEqual(["a", "b"]);
    expect(params.mode?.enum).toEqual(["x", "y"]);
    expect(params.since).toEqual({ type: "datetime", required: false });
  });

  it("treats an absent parameters block as none", () => {
    expect(parseParameters(new Def("views/x.yaml", [], undefined))).toEqual({});
  });

  it("refuses an unknown type", () => {
    const error = refuse({ a: { type: "text" } });
    expect(error.code).toBe("definition_invalid");
    expect(error.extra.path).toBe("views.0.parameters.a.type");
  });

  it("requires type", () => {
    expect(refuse({ a: { required: true } }).extra.path).toBe("views.0.parameters.a.type");
  });

  it("refuses unknown keys", () => {
    expect(refuse({ a: { type: "string", pattern: "x" } }).extra.path).toBe("views.0.parameters.a.pattern");
  });

  it("refuses a name that is not a plain identifier", () => {
    expect(refuse({ "a-b": { type: "string" } }).code).toBe("definition_invalid");
    expect(refuse({ "1a": { type: "string" } }).code).toBe("definition_invalid");
  });

  it("refuses a default on a required parameter", () => {
    expect(refuse({ a: { type: "string", required: true, default: "x" } }).extra.path).toBe(
      "views.0.parameters.a.default",
    );
  });

  it("refuses a default of the wrong type", () => {
    expect(refuse({ a: { type: "integer", default: "5" } }).extra.path).toBe("views.0.parameters.a.default");
    expect(refuse({ a: { type: "integer", default: 1.5 } }).code).toBe("definition_invalid");
    expect(refuse({ a: { type: "string_array", default: [1] } }).code).toBe("definition_invalid");
  });

  it("refuses a default outside the constraints", () => {
    expect(refuse({ a: { type: "integer", maximum: 3, default: 4 } }).extra.path).toBe(
      "views.0.parameters.a.default",
    );
    expect(refuse({ a: { type: "string", max_length: 2, default: "abc" } }).code).toBe("definition_invalid");
    expect(refuse({ a: { type: "string", enum: ["x"], default: "y" } }).code).toBe("definition_invalid");
    expect(refuse({ a: { type: "string_array", item_enum: ["x"], default: ["y"] } }).code).toBe(
      "definition_invalid",
    );
    expect(refuse({ a: { type: "string_array", min_items: 1, default: [] } }).code).toBe(
      "definition_invalid",
    );
  });

  it("refuses a datetime default without a timezone", () => {
    expect(refuse({ a: { type: "datetime", default: "2024-01-01T00:00:00" } }).extra.path).toBe(
      "views.0.parameters.a.default",
    );
    expect(parse({ a: { type: "datetime", default: "2024-01-01T00:00:00+02:00" } }).a?.default).toBe(
      "2024-01-01T00:00:00+02:00",
    );
  });

  it("refuses a blank description", () => {
    expect(refuse({ a: { type: "string", description: "  " } }).extra.path).toBe(
      "views.0.parameters.a.description",
    );
  });

  it("refuses an empty enum", () => {
    expect(refuse({ a: { type: "string", enum: [] } }).extra.path).toBe("views.0.parameters.a.enum");
  });

  it("refuses a duplicate enum value", () => {
    const error = refuse({ a: { type: "string", enum: ["x", "x"] } });
    expect(error.code).toBe("definition_duplicate");
    expect(error.extra.path).toBe("views.0.parameters.a.enum.1");
  });

  it("refuses an enum value of the wrong type", () => {
    expect(refuse({ a: { type: "integer", enum: [1, "2"] } }).extra.path).toBe("views.0.parameters.a.enum.1");
  });

  it("refuses item_enum on anything but string_array", () => {
    expect(refuse({ a: { type: "string", item_enum: ["x"] } }).extra.path).toBe(
      "views.0.parameters.a.item_enum",
    );
  });

  it("refuses an empty or duplicated item_enum", () => {
    expect(refuse({ a: { type: "string_array", item_enum: [] } }).code).toBe("definition_invalid");
    expect(refuse({ a: { type: "string_array", item_enum: ["x", "x"] } }).code).toBe("definition_duplicate");
  });

  it("refuses minimum and maximum on non-numeric types", () => {
    expect(refuse({ a: { type: "string", minimum: 1 } }).extra.path).toBe("views.0.parameters.a.minimum");
    expect(refuse({ a: { type: "boolean", maximum: 1 } }).extra.path).toBe("views.0.parameters.a.maximum");
  });

  it("refuses minimum above maximum", () => {
    expect(refuse({ a: { type: "number", minimum: 2, maximum: 1 } }).extra.path).toBe(
      "views.0.parameters.a.minimum",
    );
  });

  it("refuses fractional bounds on an integer", () => {
    expect(refuse({ a: { type: "integer", minimum: 0.5 } }).extra.path).toBe("views.0.parameters.a.minimum");
  });

  it("refuses length bounds on non-strings", () => {
    expect(refuse({ a: { type: "integer", min_length: 1 } }).extra.path).toBe(
      "views.0.parameters.a.min_length",
    );
    expect(refuse({ a: { type: "string_array", max_length: 1 } }).code).toBe("definition_invalid");
  });

  it("refuses min_length above max_length and negative lengths", () => {
    expect(refuse({ a: { type: "string", min_length: 3, max_length: 2 } }).code).toBe("definition_invalid");
    expect(refuse({ a: { type: "string", min_length: -1 } }).code).toBe("definition_invalid");
  });

  it("refuses item bounds on non-lists", () => {
    expect(refuse({ a: { type: "string", min_items: 1 } }).extra.path).toBe("views.0.parameters.a.min_items");
    expect(refuse({ a: { type: "string_array", min_items: 2, max_items: 1 } }).code).toBe(
      "definition_invalid",
    );
  });

  it("refuses a non-boolean required", () => {
    expect(refuse({ a: { type: "string", required: "yes" } }).extra.path).toBe(
      "views.0.parameters.a.required",
    );
  });
});

describe("validateArguments", () => {
  const params = parse({
    who: { type: "string", required: true, min_length: 2 },
    k: { type: "integer", default: 5, minimum: 1, maximum: 10 },
    tags: { type: "string_array", item_enum: ["a", "b"] },
    since: { type: "datetime" },
    mode: { type: "string", enum: ["x", "y"] },
    w: { type: "number" },
    flag: { type: "boolean" },
  });

  it("applies defaults and leaves optional parameters without default absent", () => {
    expect(validateArguments(params, { who: "ab" })).toEqual({ who: "ab", k: 5 });
  });

  it("keeps valid values", () => {
    const args = {
      who: "ab",
      k: 3,
      tags: ["b"],
      since: "2024-01-01T00:00:00Z",
      mode: "y",
      w: 1.5,
      flag: true,
    };
    expect(validateArguments(params, args)).toEqual(args);
  });

  it("refuses unknown parameters", () => {
    const { error, paths } = requestError(() => validateArguments(params, { who: "ab", other: 1 }));
    expect(error.status).toBe(422);
    expect(paths).toEqual(["other"]);
  });

  it("refuses a missing required parameter", () => {
    expect(requestError(() => validateArguments(params, {})).paths).toEqual(["who"]);
  });

  it("does not coerce strings", () => {
    expect(requestError(() => validateArguments(params, { who: "ab", k: "3" })).paths).toEqual(["k"]);
    expect(requestError(() => validateArguments(params, { who: "ab", flag: "true" })).paths).toEqual([
      "flag",
    ]);
  });

  it("refuses out-of-range values", () => {
    expect(requestError(() => validateArguments(params, { who: "ab", k: 11 })).paths).toEqual(["k"]);
    expect(requestError(() => validateArguments(params, { who: "a" })).paths).toEqual(["who"]);
    expect(requestError(() => validateArguments(params, { who: "ab", k: 2.5 })).paths).toEqual(["k"]);
  });

  it("refuses values outside enum and item_enum", () => {
    expect(requestError(() => validateArguments(params, { who: "ab", mode: "z" })).paths).toEqual(["mode"]);
    expect(requestError(() => validateArguments(params, { who: "ab", tags: ["c"] })).paths).toEqual(["tags"]);
  });

  it("refuses datetimes without timezone", () => {
    expect(
      requestError(() => validateArguments(params, { who: "ab", since: "2024-01-01T00:00:00" })).paths,
    ).toEqual(["since"]);
  });

  it("lists every problem at once", () => {
    expect(requestError(() => validateArguments(params, { k: 0, x: 1 })).paths.sort()).toEqual([
      "k",
      "who",
      "x",
    ]);
  });

  it("refuses a body that is not an object", () => {
    expect(requestError(() => validateArguments(params, [1])).error.code).toBe("request_schema");
  });

  it("treats an omitted parameter named like an Object member as absent", () => {
    const members = parse({ constructor: { type: "string" }, toString: { type: "string", default: "d" } });
    expect(validateArguments(members, {})).toEqual({ toString: "d" });
    expect(validateArguments(members, { constructor: "c" })).toEqual({ constructor: "c", toString: "d" });
  });

  it("accepts an absent body when nothing is required", () => {
    expect(validateArguments(parse({ k: { type: "integer", default: 1 } }), undefined)).toEqual({ k: 1 });
  });
});

describe("parametersInputSchema and compactParameters", () => {
  const params = parse({
    who: { type: "string", required: true, description: "d", max_length: 9 },
    since: { type: "datetime" },
    tags: { type: "string_array", item_enum: ["a"], max_items: 3 },
    k: { type: "integer", minimum: 1, maximum: 9, default: 2 },
  });

  it("builds a strict JSON Schema object", () => {
    const schema = parametersInputSchema(params);
    expect(schema).toEqual({
      type: "object",
      properties: {
        who: { type: "string", description: "d", maxLength: 9 },
        since: { type: "string", format: "date-time" },
        tags: { type: "array", items: { type: "string", enum: ["a"] }, maxItems: 3 },
        k: { type: "integer", minimum: 1, maximum: 9, default: 2 },
      },
      additionalProperties: false,
      required: ["who"],
    });
    const validate = ajv.compile(schema);
    expect(validate({ who: "x", k: 3 })).toBe(true);
    expect(validate({ who: "x", extra: 1 })).toBe(false);
    expect(validate({ who: "x", since: "yesterday" })).toBe(false);
  });

  it("gives the compact discovery map", () => {
    expect(compactParameters(params)).toEqual({
      who: { type: "string", required: true },
      since: { type: "datetime", required: false },
      tags: { type: "string_array", required: false },
      k: { type: "integer", required: false, default: 2 },
    });
  });
});

describe("sampleArguments", () => {
  it("gives one valid value per parameter", () => {
    const params = parse({
      a: { type: "string", min_length: 3, max_length: 4 },
      b: { type: "integer", minimum: 5 },
      c: { type: "number", maximum: -2 },
      d: { type: "string_array", item_enum: ["p", "q"], min_items: 2 },
      e: { type: "datetime" },
      f: { type: "datetime" },
      g: { type: "boolean" },
      h: { type: "string", enum: ["z"] },
      i: { type: "integer", default: 7 },
      j: { type: "string_array" },
    });
    const sample = sampleArguments(params);
    expect(validateArguments(params, sample)).toEqual(sample);
    expect(sample.i).toBe(7);
    expect(sample.h).toBe("z");
    expect(Date.parse(sample.e as string)).toBeLessThan(Date.parse(sample.f as string));
  });
});

describe("isZonedTimestamp", () => {
  it.each([
    ["2024-02-29T10:00:00Z", true],
    ["2024-02-30T10:00:00Z", false],
    ["2024-01-01T10:00:00.123+05:30", true],
    ["2024-01-01 10:00:00Z", false],
    ["2024-01-01", false],
  ])("%s → %s", (value, ok) => {
    expect(isZonedTimestamp(value)).toBe(ok);
  });
});
