// The operator API (src/contract/admin.ts): workspaces created, listed and deleted while the
// server runs, for Authorization: Bearer <ADMIN_TOKEN>. Unset, every route is the plain 404 of a
// route that does not exist; a wrong or missing token (a workspace key included) is 401.
import type { FastifyInstance, FastifyRequest } from "fastify";
import { CREATE_WORKSPACE, DELETE_WORKSPACE, LIST_WORKSPACES } from "../../contract/index.js";
import type { Db } from "../../platform/db/index.js";
import { AppError } from "../../platform/errors.js";
import { isUuid } from "../../platform/input.js";
import { createWorkspace, deleteWorkspace, workspacesPage } from "../../workspaces/index.js";
import { carriesToken, tokenDigest } from "../auth.js";
import { contractRoute } from "../contract-route.js";

export function adminRoutes(app: FastifyInstance, db: Db, token: string | undefined): void {
  const expected = token === undefined ? undefined : tokenDigest(token);
  const onRequest = async (request: FastifyRequest) => {
    if (!expected) throw new AppError("not_found", `no route ${request.method} ${request.url.split("?")[0]}`);
    if (!carriesToken(request.headers.authorization, expected)) {
      throw new AppError("unauthorized", "send the operator token as Authorization: Bearer <ADMIN_TOKEN>");
    }
  };
  app.route<{ Body: { name: string } }>({
    ...contractRoute(CREATE_WORKSPACE),
    onRequest,
    handler: async (request, reply) => {
      const { id, workspace: name, created_at, api_key } = await createWorkspace(db, request.body.name);
      return reply.code(201).send({ id, name, created_at, api_key });
    },
  });
  app.route<{ Querystring: { limit: number; after?: string } }>({
    ...contractRoute(LIST_WORKSPACES),
    onRequest,
    handler: async (request) => workspacesPage(db, request.query),
  });
  app.route<{ Params: { id: string } }>({
    ...contractRoute(DELETE_WORKSPACE),
    onRequest,
    handler: async (request, reply) => {
      const { id } = request.params;
      if (!isUuid(id) || !(await deleteWorkspace(db, id)))
        throw new AppError("not_found", `no workspace ${id}`);
      return reply.code(204).send();
    },
  });
}
