import type { FastifyInstance } from "fastify";
import type { Db } from "../../platform/db/index.js";
import { describeJob, getJob, retryJob } from "../../worker/queue.js";

const params = { type: "object", properties: { id: { type: "string" } }, required: ["id"] } as const;

export function jobRoutes(app: FastifyInstance, db: Db): void {
  const tags = ["jobs"];
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
