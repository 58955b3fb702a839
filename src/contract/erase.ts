// POST /erase (docs/api.md "POST /erase"): erase an entity or explicit records, or count what
// that would remove (dry_run).
import { UUID_PATTERN } from "../platform/input.js";
import { ROW_LIMITS } from "../records/index.js";
import { shape } from "./closed-object.js";
import type { RouteContract } from "./route.js";
import { int, uuid } from "./schema-parts.js";

// A request naming more ids than the default ERASE_MAX_RECORDS could never be erased whole.
const IDS_MAX = 100_000;

export const ERASE: RouteContract = {
  method: "POST",
  url: "/erase",
  schema: {
    summary:
      "Erase an entity or explicit records with everything derived from them; irreversible, audited without content (dry_run: only count them)",
    tags: ["erasure"],
    querystring: {
      type: "object",
      properties: {
        dry_run: {
          type: "boolean",
          default: false,
          description:
            "true: answer what this erasure would remove (deleted, affected_entities, by_collection, derived) and remove nothing",
        },
      },
      additionalProperties: false,
    },
    body: {
      type: "object",
      properties: {
        entity: { type: "string", minLength: 1, maxLength: ROW_LIMITS.entityChars, pattern: "\\S" },
        records: {
          type: "array",
          minItems: 1,
          maxItems: IDS_MAX,
          items: { type: "string", pattern: UUID_PATTERN },
        },
      },
      oneOf: [{ required: ["entity"] }, { required: ["records"] }],
      additionalProperties: false,
    },
    response: {
      200: {
        oneOf: [
          shape({ audit_id: uuid, deleted: int, affected_entities: int, index_delete_job_id: uuid }),
          shape({
            dry_run: { const: true },
            deleted: int,
            affected_entities: int,
            by_collection: { type: "object", additionalProperties: int },
            derived: { ...int, description: "of deleted, the records pulled in through derived_from" },
          }),
        ],
      },
    },
  },
};
