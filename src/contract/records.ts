// The record routes (docs/api.md "Write and read records"): POST /records, GET /records,
// GET /records/{id}, GET /records/{id}/cited-by, GET /timeline, GET /document,
// GET /document/history, GET /delta and POST /cursor, each with its request and its reply.
import { SEQ_MAX } from "../platform/input.js";
import { ROW_SCHEMA, type StatusFilter } from "../records/index.js";
import { shape } from "./closed-object.js";
import { freshness } from "./derivations.js";
import type { RouteContract } from "./route.js";
import {
  anyObject,
  asOf,
  bool,
  int,
  listOf,
  nullable,
  type Schema,
  str,
  timestamp,
  uuid,
} from "./schema-parts.js";

const tags = ["records"];

const nameList = {
  type: "array",
  items: { type: "string", minLength: 1 },
  description: "comma-separated, or the parameter repeated",
} as const;
const limit = { type: "integer", minimum: 1, maximum: 100, default: 20 } as const;
const seq = { type: "integer", minimum: 0, maximum: SEQ_MAX } as const;
const nonBlank = { type: "string", minLength: 1, pattern: "\\S" } as const;
const includeSystem = { type: "boolean", default: false } as const;
const strict = { type: "object", additionalProperties: false } as const;
const recordIdParams = { type: "object", properties: { id: { type: "string" } } } as const;

/** status=active|draft|all, defaulting as each read documents. */
function statusFilter(fallback: StatusFilter) {
  return { type: "string", enum: ["active", "draft", "all"], default: fallback } as const;
}

const record = shape({
  id: uuid,
  seq: int,
  collection: str,
  collection_version: int,
  collection_hash: str,
  entity: str,
  type: str,
  key: nullable("string"),
  status: { enum: ["active", "draft"] },
  ready: bool,
  tombstone: bool,
  text: str,
  content: anyObject,
  scores: anyObject,
  annotations: anyObject,
  citations: listOf(uuid),
  derived_from: listOf(uuid),
  depth: int,
  run_id: { type: ["string", "null"] },
  occurred_at: timestamp,
  created_at: timestamp,
});

const compactRow = {
  type: "object",
  properties: {
    id: uuid,
    seq: int,
    collection: str,
    key: nullable("string"),
    type: str,
    status: str,
    ready: bool,
    tombstone: bool,
    text: str,
    occurred_at: timestamp,
    created_at: timestamp,
  },
  required: ["id", "seq", "collection", "key", "type", "status", "ready", "tombstone", "text"],
} as const;

const page = (name: string, items: Schema) =>
  shape({ [name]: listOf(items), next_before_seq: nullable("integer"), truncated: bool });

export const WRITE_RECORDS: RouteContract = {
  method: "POST",
  url: "/records",
  schema: {
    summary: "Write a batch of records atomically",
    tags,
    body: {
      ...strict,
      properties: {
        records: {
          type: "array",
          minItems: 1,
          items: ROW_SCHEMA,
          description: "at most MAX_BATCH_RECORDS rows, written in one transaction",
        },
      },
      required: ["records"],
    },
    response: {
      200: shape({
        inserted: listOf(shape({ index: int, id: uuid, ready: bool })),
        duplicates: listOf(shape({ index: int, id: uuid })),
        job_id: {
          ...nullable("string"),
          format: "uuid",
          description: "the enrichment job queued (GET /jobs/{id}), or null",
        },
      }),
    },
  },
};

export const GET_RECORD: RouteContract = {
  method: "GET",
  url: "/records/:id",
  schema: { summary: "One full record", tags, params: recordIdParams, response: { 200: record } },
};

export const CITED_BY: RouteContract = {
  method: "GET",
  url: "/records/:id/cited-by",
  schema: {
    summary: "The records whose derived_from names this record, newest first",
    tags,
    params: recordIdParams,
    querystring: { ...strict, properties: { limit, before_seq: seq } },
    response: { 200: shape({ records: listOf(record), next_before_seq: nullable("integer") }) },
  },
};

export const TIMELINE: RouteContract = {
  method: "GET",
  url: "/timeline",
  schema: {
    summary: "Records newest first (events and keyed rows, successors not collapsed)",
    tags,
    querystring: {
      ...strict,
      properties: {
        entity: nonBlank,
        collections: nameList,
        types: nameList,
        status: statusFilter("active"),
        include_system: includeSystem,
        limit,
        before_seq: seq,
        as_of: asOf,
      },
    },
    response: { 200: page("records", compactRow) },
  },
};

export const LIST_RECORDS: RouteContract = {
  method: "GET",
  url: "/records",
  schema: {
    summary: "The workspace's records across entities, newest first, filtered and paged",
    tags,
    querystring: {
      ...strict,
      properties: {
        collection: {
          ...nonBlank,
          maxLength: 128,
          description: "only this collection (_system only when named)",
        },
        type: { ...nonBlank, maxLength: 128, description: "only this record type" },
        status: statusFilter("all"),
        created_after: {
          type: "string",
          description: "only records created after it (ISO 8601 with a zone)",
        },
        created_before: {
          type: "string",
          description: "only records created before it (ISO 8601 with a zone)",
        },
        limit: { ...limit, default: 50 },
        before: {
          type: "string",
          minLength: 1,
          maxLength: 64,
          description: "the next_before of the page before",
        },
      },
    },
    response: {
      200: shape({
        records: listOf({
          ...compactRow,
          properties: { ...compactRow.properties, entity: str },
          required: [...compactRow.required, "entity"],
        }),
        next_before: {
          type: ["string", "null"],
          description: "the cursor of the next, older page; null on the last",
        },
      }),
    },
  },
};

export const DOCUMENT: RouteContract = {
  method: "GET",
  url: "/document",
  schema: {
    summary: "Current beliefs and retractions of an entity",
    tags,
    querystring: {
      ...strict,
      properties: {
        entity: nonBlank,
        collections: nameList,
        status: { type: "string", enum: ["active", "draft"], default: "active" },
        as_of: asOf,
      },
      required: ["entity"],
    },
    response: {
      200: shape({
        entity: str,
        status: str,
        beliefs: listOf(
          shape({
            collection: str,
            collection_version: int,
            key: str,
            type: str,
            text: str,
            id: uuid,
            citations: listOf(uuid),
            status: str,
            ready: bool,
            occurred_at: timestamp,
            created_at: timestamp,
          }),
        ),
        retractions: listOf(shape({ collection: str, key: str, id: uuid, seq: int })),
        freshness,
      }),
    },
  },
};

export const DOCUMENT_HISTORY: RouteContract = {
  method: "GET",
  url: "/document/history",
  schema: {
    summary: "Every version of one keyed slot, newest first",
    tags,
    querystring: {
      ...strict,
      properties: { entity: nonBlank, collection: nonBlank, key: nonBlank, limit, before_seq: seq },
      required: ["entity", "collection", "key"],
    },
    response: {
      200: page(
        "versions",
        shape({
          id: uuid,
          seq: int,
          collection: str,
          collection_version: int,
          collection_hash: str,
          key: str,
          type: str,
          status: str,
          text: { ...str, description: "what this version said (a memory or fact is mostly its text)" },
          content: anyObject,
          tombstone: bool,
          ready: bool,
          run_id: nullable("string"),
          citations: listOf(uuid),
          depth: int,
          occurred_at: timestamp,
          created_at: timestamp,
          superseded_at: {
            type: ["string", "null"],
            format: "date-time",
            description: "created_at of the version of the same status that replaced it; null while current",
          },
        }),
      ),
    },
  },
};

export const DELTA: RouteContract = {
  method: "GET",
  url: "/delta",
  schema: {
    summary: "Changes after the consumer's cursor, ascending by seq",
    tags,
    querystring: {
      ...strict,
      properties: {
        consumer: nonBlank,
        entity: nonBlank,
        collection: nonBlank,
        status: statusFilter("all"),
        include_system: includeSystem,
        limit,
      },
      required: ["consumer"],
    },
    response: { 200: shape({ records: listOf(compactRow), next_cursor: int, scope_hash: str }) },
  },
};

export const MOVE_CURSOR: RouteContract = {
  method: "POST",
  url: "/cursor",
  schema: {
    summary: "Advance a consumer's cursor after applying a delta page",
    tags,
    body: {
      ...strict,
      properties: {
        consumer: nonBlank,
        entity: { type: ["string", "null"] },
        position: seq,
        scope_hash: { type: "string", pattern: "^[0-9a-f]{64}$" },
        force: { type: "boolean" },
      },
      required: ["consumer", "position", "scope_hash"],
    },
    response: {
      200: shape({
        consumer: str,
        entity: nullable("string"),
        position: int,
        scope_hash: str,
        updated_at: timestamp,
      }),
    },
  },
};
