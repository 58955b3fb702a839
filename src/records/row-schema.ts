// The JSON Schema of one row of POST /records. validateRows checks every row against it before
// the catalog's rules (collection, key mode, content schema); the HTTP route declares it too, so
// OpenAPI publishes the very schema that validates.
import { UUID_PATTERN } from "../platform/input.js";

// Bounds on what one row may carry (docs/api.md, "Limits": the writable fields
// and their bounds). Generous for real use, small enough that one batch stays bounded.
export const ROW_LIMITS = {
  entityChars: 256,
  typeChars: 128,
  keyChars: 256,
  dedupeKeyChars: 256,
  textChars: 100_000,
  derivedFrom: 100,
  scores: 64,
  annotations: 64,
  nameChars: 64,
} as const;

const nonBlank = (maxLength: number) =>
  ({ type: "string", minLength: 1, maxLength, pattern: "\\S" }) as const;
const processorName = {
  type: "string",
  pattern: "^[a-z][a-z0-9_]*$",
  maxLength: ROW_LIMITS.nameChars,
} as const;

export const ROW_SCHEMA = {
  type: "object",
  description: "One record to write; content must satisfy the collection's schema",
  properties: {
    collection: nonBlank(ROW_LIMITS.nameChars),
    entity: nonBlank(ROW_LIMITS.entityChars),
    type: nonBlank(ROW_LIMITS.typeChars),
    text: { type: "string", maxLength: ROW_LIMITS.textChars },
    content: {
      type: "object",
      additionalProperties: true,
      description: "validated against the collection's JSON Schema",
    },
    occurred_at: { type: "string", description: "ISO 8601 with a timezone, years 1-9999" },
    dedupe_key: nonBlank(ROW_LIMITS.dedupeKeyChars),
    key: {
      ...nonBlank(ROW_LIMITS.keyChars),
      type: ["string", "null"],
      description: "required in keyed collections, refused in event collections",
    },
    status: { enum: ["active", "draft"] },
    tombstone: { type: "boolean", description: "a keyed row that ends its slot" },
    derived_from: {
      type: "array",
      items: { type: "string", pattern: UUID_PATTERN },
      maxItems: ROW_LIMITS.derivedFrom,
      description: "ids of records of this workspace that this record rests on",
    },
    scores: {
      type: "object",
      propertyNames: processorName,
      additionalProperties: { type: "number" },
      maxProperties: ROW_LIMITS.scores,
    },
    annotations: {
      type: "object",
      propertyNames: processorName,
      additionalProperties: true,
      maxProperties: ROW_LIMITS.annotations,
    },
  },
  required: ["collection", "entity", "type"],
  additionalProperties: false,
} as const;
