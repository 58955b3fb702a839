// GET, POST and DELETE /keys (src/contract/keys.ts): the workspace's keys, managed by its admin
// keys while the server runs; src/http/auth.ts refuses any other key (403 key_scope).
import type { FastifyInstance } from "fastify";
import { CREATE_KEY, LIST_KEYS, REVOKE_KEY } from "../../contract/index.js";
import type { Db } from "../../platform/db/index.js";
import { insertKey, type KeyScope, listKeys, parseDuration, revokeKey } from "../../workspaces/index.js";
import { contractRoute } from "../contract-route.js";

const manageKeys = { manageKeys: true };

export function keyRoutes(app: FastifyInstance, db: Db): void {
  app.route({
    ...contractRoute(LIST_KEYS),
    config: manageKeys,
    handler: async (request) => ({ keys: await listKeys(db, request.workspace.id) }),
  });
  app.route<{ Body: { name: string; scope: KeyScope; expires_in?: string } }>({
    ...contractRoute(CREATE_KEY),
    config: manageKeys,
    handler: async (request, reply) => {
      const { name, scope, expires_in } = request.body;
      const expiresInMs = expires_in === undefined ? undefined : parseDuration(expires_in, "body.expires_in");
      const { workspace: _name, ...created } = await insertKey(db, request.workspace, {
        name,
        scope,
        expiresInMs,
      });
      return reply.code(201).send(created);
    },
  });
  app.route<{ Params: { id: string } }>({
    ...contractRoute(REVOKE_KEY),
    config: manageKeys,
    handler: async (request, reply) => {
      // Ids only: a key in the URL would reach proxies and request logs (docs/api.md "Keys over HTTP").
      await revokeKey(db, request.workspace, request.params.id, { byKey: false });
      return reply.code(204).send();
    },
  });
}
