// The job routes (src/contract/jobs.ts): list, read and retry background jobs.
import type { FastifyInstance } from "fastify";
import { GET_JOB, LIST_JOBS, RETRY_JOB } from "../../contract/index.js";
import type { Db } from "../../platform/db/index.js";
import { describeJob, getJob, type JobQuery, listJobs, retryJob } from "../../worker/index.js";
import { contractRoute } from "../contract-route.js";

export function jobRoutes(app: FastifyInstance, db: Db): void {
  app.route<{ Querystring: JobQuery }>({
    ...contractRoute(LIST_JOBS),
    handler: async (request) => listJobs(db, request.workspace.id, request.query),
  });
  app.route<{ Params: { id: string } }>({
    ...contractRoute(GET_JOB),
    handler: async (request) => describeJob(await getJob(db, request.workspace.id, request.params.id)),
  });
  app.route<{ Params: { id: string } }>({
    ...contractRoute(RETRY_JOB),
    handler: async (request) => describeJob(await retryJob(db, request.workspace.id, request.params.id)),
  });
}
