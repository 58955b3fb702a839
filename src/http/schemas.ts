// Shared response schemas, referenced by routes and published in the OpenAPI document.

export const problemSchema = {
  $id: "Problem",
  type: "object",
  description: "RFC 9457 problem details with a stable machine-readable code",
  properties: {
    type: { type: "string" },
    title: { type: "string" },
    status: { type: "integer" },
    code: { type: "string" },
    detail: { type: "string" },
    errors: {
      type: "array",
      items: {
        type: "object",
        properties: { path: { type: "string" }, message: { type: "string" } },
      },
    },
  },
  required: ["type", "title", "status", "code", "detail"],
  additionalProperties: true,
} as const;
