// GET /workspace, GET /workspace/activity and GET /entities (docs/api.md "The workspace"): what the
// key's workspace holds, what was written per day, and the write limits a client sizes batches by.
import { ROW_LIMITS } from "../records/index.js";
import { JOB_STATES } from "../worker/index.js";
import { KEY_SCOPES } from "../workspaces/index.js";
import { shape } from "./closed-object.js";
import type { RouteContract } from "./route.js";
import { int, listOf, nullable, str, timestamp, uuid } from "./schema-parts.js";

const tags = ["workspace"];

export const WORKSPACE: RouteContract = {
  method: "GET",
  url: "/workspace",
  schema: {
    summary:
      "The key's workspace: id, name, counts of records, entities, unready records and jobs, the key's own id, name, scope and expiry, and the server's write limits",
    tags,
    response: {
      200: shape({
        id: uuid,
        name: str,
        created_at: timestamp,
        counts: shape({
          records: int,
          entities: int,
          unready: int,
          jobs: shape(Object.fromEntries(JOB_STATES.map((state) => [state, int]))),
        }),
        oldest_unready_at: { type: ["string", "null"], format: "date-time" },
        key: shape({
          id: uuid,
          name: str,
          scope: { enum: [...KEY_SCOPES] },
          expires_at: { type: ["string", "null"], format: "date-time" },
        }),
        limits: shape({
          max_batch_records: { ...int, description: "rows one POST /records takes (MAX_BATCH_RECORDS)" },
          max_body_bytes: { ...int, description: "the largest request body, in bytes (larger gets 413)" },
        }),
      }),
    },
  },
};

/** The most days GET /workspace/activity covers. */
export const ACTIVITY_DAYS_MAX = 90;

export const WORKSPACE_ACTIVITY: RouteContract = {
  method: "GET",
  url: "/workspace/activity",
  schema: {
    summary:
      "Records written per UTC day over the last days (and how many derivations wrote), every day listed",
    tags,
    querystring: {
      type: "object",
      properties: { days: { type: "integer", minimum: 1, maximum: ACTIVITY_DAYS_MAX, default: 30 } },
      additionalProperties: false,
    },
    response: {
      200: shape({
        days: listOf(
          shape({
            day: { ...str, description: "the UTC day, YYYY-MM-DD; oldest first, today last" },
            records: int,
            derived: { ...int, description: "of records, those a derivation wrote" },
          }),
        ),
      }),
    },
  },
};

export const ENTITIES: RouteContract = {
  method: "GET",
  url: "/entities",
  schema: {
    summary: "The workspace's entities in name order, with record counts and their newest record",
    tags,
    querystring: {
      type: "object",
      properties: {
        prefix: {
          type: "string",
          maxLength: ROW_LIMITS.entityChars,
          description: "names starting with this text (% and _ are ordinary characters)",
        },
        limit: { type: "integer", minimum: 1, maximum: 100, default: 50 },
        after: {
          type: "string",
          minLength: 1,
          maxLength: ROW_LIMITS.entityChars,
          description: "next_after of the previous page (the last name it listed)",
        },
      },
      additionalProperties: false,
    },
    response: {
      200: shape({
        entities: listOf(shape({ entity: str, records: int, last_seq: int, last_at: timestamp })),
        next_after: nullable("string"),
      }),
    },
  },
};
