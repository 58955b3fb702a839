import type { FastifyInstance } from "fastify";
import type { Config } from "../../config/index.js";
import { readDocument } from "../../derivations/index.js";
import type { Db } from "../../platform/db/index.js";
import { SEQ_MAX } from "../../platform/input.js";
import {
  citedBy,
  delta,
  getRecord,
  moveCursor,
  type StatusFilter,
  slotHistory,
  timeline,
  writeRecords,
} from "../../records/index.js";
import { ROW_SCHEMA } from "../../records/row-schema.js";

const nameList = {
  type: "array",
  items: { type: "string", minLength: 1 },
  description: "comma-separated, or the parameter repeated",
} as const;
const limit = { type: "integer", minimum: 1, maximum: 100, default: 20 } as const;
const seq = { type: "integer", minimum: 0, maximum: SEQ_MAX } as const;
const nonBlank = { type: "string", minLength: 1, pattern: "\\S" } as const;
const includeSystem = { type: "boolean", default: false } as const;

/** status=active|draft|all, defaulting as each read documents. */
function statusFilter(fallback: StatusFilter) {
  return { type: "string", enum: ["active", "draft", "all"], default: fallback } as const;
}

/** Lists arrive as ?collections=a,b or ?collections=a&collections=b. */
function splitList(values: string[] | undefined): string[] | undefined {
  if (values === undefined) return undefined;
  return values
    .flatMap((value) => value.split(","))
    .map((value) => value.trim())
    .filter(Boolean);
}

const strict = { type: "object", additionalProperties: false } as const;

export function recordRoutes(app: FastifyInstance, db: Db, config: Config): void {
  const tags = ["records"];

  app.post<{ Body: { records: unknown[] } }>(
    "/records",
    {
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
      },
    },
    async (request) =>
      writeRecords(db, request.workspace, request.body.records, { maxBatch: config.maxBatchRecords }),
  );

  app.get<{ Params: { id: string } }>(
    "/records/:id",
    {
      schema: {
        summary: "One full record",
        tags,
        params: { type: "object", properties: { id: { type: "string" } } },
      },
    },
    async (request) => getRecord(db, request.workspace.id, request.params.id),
  );

  app.get<{ Params: { id: string }; Querystring: { limit: number; before_seq?: number } }>(
    "/records/:id/cited-by",
    {
      schema: {
        summary: "The records whose derived_from names this record, newest first",
        tags,
        params: { type: "object", properties: { id: { type: "string" } } },
        querystring: { ...strict, properties: { limit, before_seq: seq } },
      },
    },
    async (request) => {
      const page = await citedBy(db, request.workspace.id, request.params.id, {
        limit: request.query.limit,
        beforeSeq: request.query.before_seq,
      });
      return { records: page.rows, next_before_seq: page.nextBeforeSeq };
    },
  );

  app.get<{
    Querystring: {
      entity?: string;
      collections?: string[];
      types?: string[];
      status?: StatusFilter;
      include_system?: boolean;
      limit: number;
      before_seq?: number;
    };
  }>(
    "/timeline",
    {
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
          },
        },
      },
    },
    async (request) => {
      const q = request.query;
      const page = await timeline(db, request.workspace.id, {
        entity: q.entity,
        collections: splitList(q.collections),
        types: splitList(q.types),
        status: q.status ?? "active",
        includeSystem: q.include_system ?? false,
        limit: q.limit,
        beforeSeq: q.before_seq,
      });
      return {
        records: page.rows,
        next_before_seq: page.nextBeforeSeq,
        truncated: page.nextBeforeSeq !== null,
      };
    },
  );

  app.get<{ Querystring: { entity: string; collections?: string[]; status?: "active" | "draft" } }>(
    "/document",
    {
      schema: {
        summary: "Current beliefs and retractions of an entity",
        tags,
        querystring: {
          ...strict,
          properties: {
            entity: nonBlank,
            collections: nameList,
            status: { type: "string", enum: ["active", "draft"], default: "active" },
          },
          required: ["entity"],
        },
      },
    },
    async (request) =>
      readDocument(db, request.workspace, {
        entity: request.query.entity,
        collections: splitList(request.query.collections),
        status: request.query.status ?? "active",
        maxRecords: config.documentMaxRecords,
      }),
  );

  app.get<{
    Querystring: { entity: string; collection: string; key: string; limit: number; before_seq?: number };
  }>(
    "/document/history",
    {
      schema: {
        summary: "Every version of one keyed slot, newest first",
        tags,
        querystring: {
          ...strict,
          properties: { entity: nonBlank, collection: nonBlank, key: nonBlank, limit, before_seq: seq },
          required: ["entity", "collection", "key"],
        },
      },
    },
    async (request) => {
      const q = request.query;
      const page = await slotHistory(db, request.workspace.id, {
        entity: q.entity,
        collection: q.collection,
        key: q.key,
        limit: q.limit,
        beforeSeq: q.before_seq,
      });
      return {
        versions: page.rows,
        next_before_seq: page.nextBeforeSeq,
        truncated: page.nextBeforeSeq !== null,
      };
    },
  );

  app.get<{
    Querystring: {
      consumer: string;
      entity?: string;
      collection?: string;
      status?: StatusFilter;
      include_system?: boolean;
      limit: number;
    };
  }>(
    "/delta",
    {
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
      },
    },
    async (request) => {
      const q = request.query;
      return delta(db, request.workspace.id, {
        consumer: q.consumer,
        limit: q.limit,
        scope: {
          entity: q.entity ?? null,
          collection: q.collection ?? null,
          status: q.status ?? "all",
          includeSystem: q.include_system ?? false,
        },
      });
    },
  );

  app.post<{
    Body: { consumer: string; entity?: string; position: number; scope_hash: string; force?: boolean };
  }>(
    "/cursor",
    {
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
      },
    },
    async (request) => {
      const body = request.body;
      return moveCursor(db, request.workspace.id, {
        consumer: body.consumer,
        entity: body.entity ?? null,
        position: body.position,
        scopeHash: body.scope_hash,
        force: body.force ?? false,
      });
    },
  );
}
