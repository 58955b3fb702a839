import type { FastifyInstance } from "fastify";
import { getRun, listRuns, promote, type RunsQuery, rebind, requestRun } from "../../derivations/index.js";
import type { Db } from "../../platform/db/index.js";
import { SEQ_MAX } from "../../platform/input.js";
import { ROW_LIMITS } from "../../records/row-schema.js";

const entity = {
  type: "string",
  minLength: 1,
  maxLength: ROW_LIMITS.entityChars,
  pattern: "\\S",
  description: "the entity the derivation reads and writes for",
} as const;
const nameParams = { type: "object", properties: { name: { type: "string" } }, required: ["name"] } as const;
const idParams = { type: "object", properties: { id: { type: "string" } }, required: ["id"] } as const;
const uuid = { type: "string", format: "uuid" } as const;

export function derivationRoutes(app: FastifyInstance, db: Db): void {
  const tags = ["derivations"];
  app.post<{ Params: { name: string }; Body: { entity: string } }>(
    "/processors/:name/run",
    {
      schema: {
        summary: "Queue a derivation run for an entity (coalesced with a queued one); no model call inline",
        tags,
        params: nameParams,
        body: { type: "object", properties: { entity }, required: ["entity"], additionalProperties: false },
      },
    },
    async (request, reply) =>
      reply.code(202).send(await requestRun(db, request.workspace, request.params.name, request.body.entity)),
  );

  app.get<{ Querystring: RunsQuery }>(
    "/runs",
    {
      schema: {
        summary: "Derivation and promotion runs, newest first",
        tags,
        querystring: {
          type: "object",
          properties: {
            entity,
            processor: { type: "string", minLength: 1, maxLength: 64 },
            operation: { enum: ["derive", "promote"] },
            source: { enum: ["changes", "snapshot"] },
            status: { enum: ["running", "succeeded", "failed", "skipped"] },
            limit: { type: "integer", minimum: 1, maximum: 100, default: 20 },
            before_seq: { type: "integer", minimum: 0, maximum: SEQ_MAX },
          },
          additionalProperties: false,
        },
      },
    },
    async (request) => listRuns(db, request.workspace.id, request.query),
  );

  app.get<{ Params: { id: string }; Querystring: { output_offset: number; output_limit: number } }>(
    "/runs/:id",
    {
      schema: {
        summary:
          "One run: hashes, read receipt, emission manifest, sources, citations and its output records",
        tags,
        params: idParams,
        querystring: {
          type: "object",
          properties: {
            output_offset: { type: "integer", minimum: 0, maximum: SEQ_MAX, default: 0 },
            output_limit: { type: "integer", minimum: 1, maximum: 100, default: 100 },
          },
          additionalProperties: false,
        },
      },
    },
    async (request) => getRun(db, request.workspace.id, request.params.id, request.query),
  );

  app.post<{ Body: { entity: string; source_run_id: string; artifact: string } }>(
    "/promote",
    {
      schema: {
        summary: "Activate a reviewed run's drafts when the live heads still match its read receipt",
        tags,
        body: {
          type: "object",
          properties: {
            entity,
            source_run_id: uuid,
            artifact: {
              type: "string",
              minLength: 1,
              maxLength: 64,
              description: "the reviewed artifact's name",
            },
          },
          required: ["entity", "source_run_id", "artifact"],
          additionalProperties: false,
        },
      },
    },
    async (request) => promote(db, request.workspace, request.body),
  );

  app.post<{ Params: { name: string }; Body: { entity: string; policy: "reset" | "carry" } }>(
    "/derivations/:name/rebind",
    {
      schema: {
        summary: "Repoint a derivation's changes watermark for an entity after a source change",
        tags,
        params: nameParams,
        body: {
          type: "object",
          properties: { entity, policy: { enum: ["reset", "carry"] } },
          required: ["entity", "policy"],
          additionalProperties: false,
        },
      },
    },
    async (request) => rebind(db, request.workspace, request.params.name, request.body),
  );
}
