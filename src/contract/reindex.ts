// POST /reindex (docs/api.md "POST /reindex"): rebuild the search projection.
import { SEQ_MAX } from "../platform/input.js";
import { shape } from "./closed-object.js";
import type { RouteContract } from "./route.js";
import { int, str } from "./schema-parts.js";

export const REINDEX: RouteContract = {
  method: "POST",
  url: "/reindex",
  schema: {
    summary: "Rebuild the search projection after a seq, or entirely (reset)",
    tags: ["backfill"],
    body: {
      type: "object",
      properties: {
        since_seq: { type: "integer", minimum: 0, maximum: SEQ_MAX },
        reset: { type: "boolean" },
        confirm: { type: "boolean" },
      },
      additionalProperties: false,
    },
    response: { 200: shape({ mode: str, target_count: int, enqueued_jobs: int }) },
  },
};
