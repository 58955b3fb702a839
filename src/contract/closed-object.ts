// shape(): the closed object schema (every property required unless named optional, no other
// property allowed) that reply schemas are built with.

/** An object with exactly these properties, all required unless named optional. */
export function shape(
  properties: Record<string, Record<string, unknown>>,
  optional: string[] = [],
): Record<string, unknown> {
  return {
    type: "object",
    properties,
    required: Object.keys(properties).filter((name) => !optional.includes(name)),
    additionalProperties: false,
  };
}
