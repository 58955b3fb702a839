// The building blocks request and reply schemas are written with.
export type Schema = Record<string, unknown>;

export const str = { type: "string" } as const;
export const int = { type: "integer" } as const;
export const num = { type: "number" } as const;
export const bool = { type: "boolean" } as const;
export const uuid = { type: "string", format: "uuid" } as const;
export const timestamp = { type: "string", format: "date-time" } as const;
/** as_of on a read: memory as it was at this moment (docs/api.md "Memory over time"). */
export const asOf = {
  type: "string",
  format: "date-time",
  maxLength: 64,
  description: "read memory as it was at this moment: only records created at or before it count",
} as const;
export const anyObject = { type: "object", additionalProperties: true } as const;
export const listOf = (items: Schema) => ({ type: "array", items }) as const;
/** A primitive value of this JSON type, or null (`{type: [type, "null"]}`). */
export const nullable = (type: string) => ({ type: [type, "null"] }) as const;
export const orNull = (schema: Schema) => ({ oneOf: [{ type: "null" }, schema] });
export const mapOf = (values: Schema) => ({ type: "object", additionalProperties: values }) as const;
/** The path parameter of routes under /…/{name}. */
export const nameParams = {
  type: "object",
  properties: { name: { type: "string" } },
  required: ["name"],
} as const;
/** The path parameter of routes under /…/{id}. */
export const idParams = { type: "object", properties: { id: { type: "string" } }, required: ["id"] } as const;
