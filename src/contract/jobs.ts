// The job routes (docs/api.md "Jobs and enrichment"): GET /jobs, GET /jobs/{id} and
// POST /jobs/{id}/retry.
import { JOB_STATES } from "../worker/index.js";
import { shape } from "./closed-object.js";
import type { RouteContract } from "./route.js";
import { idParams, int, listOf, nullable, str, timestamp, uuid } from "./schema-parts.js";

const tags = ["jobs"];

const job = shape({
  id: uuid,
  kind: str,
  state: { enum: [...JOB_STATES] },
  attempts: int,
  max_attempts: int,
  run_after: timestamp,
  lease: { oneOf: [{ type: "null" }, shape({ owner: str, expires_at: timestamp })] },
  last_error: nullable("string"),
  successful_run_id: { type: ["string", "null"] },
  created_at: timestamp,
  updated_at: timestamp,
  finished_at: { type: ["string", "null"], format: "date-time" },
});

export const LIST_JOBS: RouteContract = {
  method: "GET",
  url: "/jobs",
  schema: {
    summary: "The workspace's jobs, newest first, by state and kind",
    tags,
    querystring: {
      type: "object",
      properties: {
        state: { type: "string", enum: [...JOB_STATES] },
        kind: {
          type: "string",
          pattern: "^[a-z][a-z0-9_]*$",
          maxLength: 64,
          description: "enrich, derive, backfill, reindex or index_delete",
        },
        limit: { type: "integer", minimum: 1, maximum: 100, default: 50 },
        before: {
          type: "string",
          minLength: 1,
          maxLength: 128,
          pattern: "^[A-Za-z0-9_-]+$",
          description: "next_before of the previous page (an opaque cursor)",
        },
      },
      additionalProperties: false,
    },
    response: {
      200: shape({
        jobs: listOf(job),
        next_before: {
          ...nullable("string"),
          description: "pass as before for the next page; null on the last",
        },
      }),
    },
  },
};

export const GET_JOB: RouteContract = {
  method: "GET",
  url: "/jobs/:id",
  schema: {
    summary: "A background job: state, attempts, lease and error",
    tags,
    params: idParams,
    response: { 200: job },
  },
};

export const RETRY_JOB: RouteContract = {
  method: "POST",
  url: "/jobs/:id/retry",
  schema: { summary: "Requeue a dead job", tags, params: idParams, response: { 200: job } },
};
