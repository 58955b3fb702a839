// The backfill routes (docs/api.md "Backfill"): start one, list them, read one and cancel one.
import { INT4_MAX } from "../platform/input.js";
import { shape } from "./closed-object.js";
import type { RouteContract } from "./route.js";
import { idParams, int, listOf, nullable, str, uuid } from "./schema-parts.js";

const tags = ["backfill"];

const backfill = {
  type: "object",
  properties: {
    id: uuid,
    state: str,
    cursor_seq: int,
    scanned: int,
    annotated: int,
    last_error: nullable("string"),
    collection: str,
    version: int,
    processor: str,
    max_rows: nullable("integer"),
  },
  required: [
    "id",
    "state",
    "cursor_seq",
    "scanned",
    "annotated",
    "last_error",
    "collection",
    "version",
    "processor",
  ],
} as const;

export const START_BACKFILL: RouteContract = {
  method: "POST",
  url: "/backfill",
  schema: {
    summary: "Run an enrichment processor over a collection version's stored records",
    tags,
    body: {
      type: "object",
      properties: {
        collection: { type: "string", minLength: 1 },
        version: { type: "integer", minimum: 1, maximum: INT4_MAX },
        processor: { type: "string", minLength: 1 },
        max_rows: { type: "integer", minimum: 1, maximum: INT4_MAX },
      },
      required: ["collection", "version", "processor"],
      additionalProperties: false,
    },
    response: { 202: backfill },
  },
};

export const LIST_BACKFILLS: RouteContract = {
  method: "GET",
  url: "/backfill",
  schema: {
    summary: "Recent backfills, newest first",
    tags,
    response: { 200: shape({ backfills: listOf(backfill) }) },
  },
};

export const GET_BACKFILL: RouteContract = {
  method: "GET",
  url: "/backfill/:id",
  schema: { summary: "A backfill's state and counters", tags, params: idParams, response: { 200: backfill } },
};

export const CANCEL_BACKFILL: RouteContract = {
  method: "POST",
  url: "/backfill/:id/cancel",
  schema: {
    summary: "Stop a backfill at its next batch boundary",
    tags,
    params: idParams,
    response: { 200: backfill },
  },
};
