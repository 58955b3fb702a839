// POST /erase (docs/api.md "POST /erase"): erase an entity or explicit records, or count what
// that would remove (dry_run).
import { UUID_PATTERN } from "../platform/input.js";
import { ROW_LIMITS } from "../records/index.js";
import { shape } from "./closed-object.js";
import type { RouteContract } from "./route.js";
import { int, listOf, nullable, str, uuid } from "./schema-parts.js";

/** The most derived records a dry run with list=true names (newest first). */
export const DERIVED_LIST_MAX = 200;

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
        list: {
          type: "boolean",
          default: false,
          description: `with dry_run: also name the derived records that would go (derived_records, the newest ${DERIVED_LIST_MAX})`,
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
          shape({
            dry_run: { const: true },
            deleted: int,
            affected_entities: int,
            by_collection: { type: "object", additionalProperties: int },
            derived: int,
            derived_records: listOf(
              shape({
                id: uuid,
                entity: str,
                collection: str,
                key: nullable("string"),
                type: str,
                text: str,
              }),
            ),
            derived_records_truncated: {
              type: "boolean",
              description: "more derived records go than are named",
            },
          }),
        ],
      },
    },
  },
};
