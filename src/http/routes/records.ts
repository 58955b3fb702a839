// The record routes (src/contract/records.ts): each registered by its own function, which turns
// the query or body into the records module's call (docs/api.md "Write and read records").
import type { FastifyInstance } from "fastify";
import type { Config } from "../../config/index.js";
import {
  CITED_BY,
  DELTA,
  DOCUMENT,
  DOCUMENT_HISTORY,
  GET_RECORD,
  LIST_RECORDS,
  MOVE_CURSOR,
  TIMELINE,
  WRITE_RECORDS,
} from "../../contract/index.js";
import { readDocument } from "../../derivations/index.js";
import type { Db } from "../../platform/db/index.js";
import {
  citedBy,
  delta,
  getRecord,
  listRecords,
  moveCursor,
  type StatusFilter,
  slotHistory,
  timeline,
  writeRecords,
  zonedInstant,
} from "../../records/index.js";
import { contractRoute } from "../contract-route.js";

/** Where a bad as_of is named in a 422 (docs/api.md "Memory over time"). */
const AS_OF = "querystring.as_of";

interface RecordRouteDeps {
  db: Db;
  config: Config;
}

/** Lists arrive as ?collections=a,b or ?collections=a&collections=b. */
function splitList(values: string[] | undefined): string[] | undefined {
  if (values === undefined) return undefined;
  return values
    .flatMap((value) => value.split(","))
    .map((value) => value.trim())
    .filter(Boolean);
}

/** A newest-first page under the name its reply gives the rows; truncated: an older page follows. */
function olderPage(name: string, page: { rows: unknown[]; nextBeforeSeq: number | null }) {
  return { [name]: page.rows, next_before_seq: page.nextBeforeSeq, truncated: page.nextBeforeSeq !== null };
}

function writeRoute(app: FastifyInstance, { db, config }: RecordRouteDeps): void {
  app.route<{ Body: { records: unknown[] } }>({
    ...contractRoute(WRITE_RECORDS),
    handler: async (request) =>
      writeRecords(db, request.workspace, request.body.records, { maxBatch: config.maxBatchRecords }),
  });
}

interface ListQuery {
  collection?: string;
  type?: string;
  status?: StatusFilter;
  created_after?: string;
  created_before?: string;
  limit: number;
  before?: string;
}

function listRoute(app: FastifyInstance, { db }: RecordRouteDeps): void {
  app.route<{ Querystring: ListQuery }>({
    ...contractRoute(LIST_RECORDS),
    handler: async (request) => {
      const q = request.query;
      return listRecords(db, request.workspace.id, {
        collection: q.collection,
        type: q.type,
        status: q.status ?? "all",
        createdAfter: q.created_after,
        createdBefore: q.created_before,
        limit: q.limit,
        before: q.before,
      });
    },
  });
}

function getRoute(app: FastifyInstance, { db }: RecordRouteDeps): void {
  app.route<{ Params: { id: string } }>({
    ...contractRoute(GET_RECORD),
    handler: async (request) => getRecord(db, request.workspace.id, request.params.id),
  });
}

function citedByRoute(app: FastifyInstance, { db }: RecordRouteDeps): void {
  app.route<{ Params: { id: string }; Querystring: { limit: number; before_seq?: number } }>({
    ...contractRoute(CITED_BY),
    handler: async (request) => {
      const page = await citedBy(db, request.workspace.id, request.params.id, {
        limit: request.query.limit,
        beforeSeq: request.query.before_seq,
      });
      return { records: page.rows, next_before_seq: page.nextBeforeSeq };
    },
  });
}

interface TimelineQuery {
  entity?: string;
  collections?: string[];
  types?: string[];
  status?: StatusFilter;
  include_system?: boolean;
  limit: number;
  before_seq?: number;
  as_of?: string;
}

function timelineRoute(app: FastifyInstance, { db }: RecordRouteDeps): void {
  app.route<{ Querystring: TimelineQuery }>({
    ...contractRoute(TIMELINE),
    handler: async (request) => {
      const q = request.query;
      const page = await timeline(db, request.workspace.id, {
        entity: q.entity,
        collections: splitList(q.collections),
        types: splitList(q.types),
        status: q.status ?? "active",
        includeSystem: q.include_system ?? false,
        limit: q.limit,
        beforeSeq: q.before_seq,
        asOf: zonedInstant(q.as_of, AS_OF),
      });
      return olderPage("records", page);
    },
  });
}

function documentRoute(app: FastifyInstance, { db, config }: RecordRouteDeps): void {
  app.route<{
    Querystring: { entity: string; collections?: string[]; status?: "active" | "draft"; as_of?: string };
  }>({
    ...contractRoute(DOCUMENT),
    handler: async (request) =>
      readDocument(db, request.workspace, {
        entity: request.query.entity,
        collections: splitList(request.query.collections),
        status: request.query.status ?? "active",
        maxRecords: config.documentMaxRecords,
        asOf: zonedInstant(request.query.as_of, AS_OF),
      }),
  });
}

interface HistoryQuery {
  entity: string;
  collection: string;
  key: string;
  limit: number;
  before_seq?: number;
}

function documentHistoryRoute(app: FastifyInstance, { db }: RecordRouteDeps): void {
  app.route<{ Querystring: HistoryQuery }>({
    ...contractRoute(DOCUMENT_HISTORY),
    handler: async (request) => {
      const q = request.query;
      const page = await slotHistory(db, request.workspace.id, {
        entity: q.entity,
        collection: q.collection,
        key: q.key,
        limit: q.limit,
        beforeSeq: q.before_seq,
      });
      return olderPage("versions", page);
    },
  });
}

interface DeltaQuery {
  consumer: string;
  entity?: string;
  collection?: string;
  status?: StatusFilter;
  include_system?: boolean;
  limit: number;
}

function deltaRoute(app: FastifyInstance, { db }: RecordRouteDeps): void {
  app.route<{ Querystring: DeltaQuery }>({
    ...contractRoute(DELTA),
    handler: async (request) => {
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
  });
}

interface CursorBody {
  consumer: string;
  entity?: string;
  position: number;
  scope_hash: string;
  force?: boolean;
}

function cursorRoute(app: FastifyInstance, { db }: RecordRouteDeps): void {
  app.route<{ Body: CursorBody }>({
    ...contractRoute(MOVE_CURSOR),
    handler: async (request) => {
      const body = request.body;
      return moveCursor(db, request.workspace.id, {
        consumer: body.consumer,
        entity: body.entity ?? null,
        position: body.position,
        scopeHash: body.scope_hash,
        force: body.force ?? false,
      });
    },
  });
}

// In the order /openapi.json lists them.
const RECORD_ROUTES = [
  writeRoute,
  listRoute,
  getRoute,
  citedByRoute,
  timelineRoute,
  documentRoute,
  documentHistoryRoute,
  deltaRoute,
  cursorRoute,
];

export function recordRoutes(app: FastifyInstance, db: Db, config: Config): void {
  for (const register of RECORD_ROUTES) register(app, { db, config });
}
