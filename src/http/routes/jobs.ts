import type { FastifyInstance } from "fastify";
import type { Db } from "../../platform/db/index.js";
import { type JobQuery, listJobs } from "../../worker/job-list.js";
import { describeJob, getJob, JOB_STATES, retryJob } from "../../worker/queue.js";

const params = { type: "object", properties: { id: { type: "string" } }, required: ["id"] } as const;

export function jobRoutes(app: FastifyInstance, db: Db): void {
  const tags = ["jobs"];
  app.get<{ Querystring: JobQuery }>(
    "/jobs",
    {
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
      },
    },
    async (request) => listJobs(db, request.workspace.id, request.query),
  );
  app.get<{ Params: { id: string } }>(
    "/jobs/:id",
    { schema: { summary: "A background job: state, attempts, lease and error", tags, params } },
    async (request) => describeJob(await getJob(db, request.workspace.id, request.params.id)),
  );
  app.post<{ Params: { id: string } }>(
    "/jobs/:id/retry",
    { schema: { summary: "Requeue a dead job", tags, params } },
    async (request) => describeJob(await retryJob(db, request.workspace.id, request.params.id)),
  );
}
