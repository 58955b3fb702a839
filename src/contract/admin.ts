// The operator API (docs/api.md "Operator API"): create, list and delete workspaces on a running
// server, behind ADMIN_TOKEN rather than a workspace key. Without ADMIN_TOKEN every route is 404.
import { shape } from "./closed-object.js";
import type { RouteContract } from "./route.js";
import { idParams, listOf, nullable, str, timestamp, uuid } from "./schema-parts.js";

const tags = ["operator"];
const security = [{ adminToken: [] }];
const workspace = { id: uuid, name: str, created_at: timestamp };

export const CREATE_WORKSPACE: RouteContract = {
  method: "POST",
  url: "/admin/workspaces",
  schema: {
    summary: "Create a workspace and its default key (scope admin), shown once",
    tags,
    security,
    body: {
      type: "object",
      properties: {
        name: {
          type: "string",
          minLength: 1,
          maxLength: 64,
          description: "1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit",
        },
      },
      required: ["name"],
      additionalProperties: false,
    },
    response: {
      201: shape({
        ...workspace,
        api_key: { type: "string", description: "the default key; shown only here" },
      }),
    },
  },
};

export const LIST_WORKSPACES: RouteContract = {
  method: "GET",
  url: "/admin/workspaces",
  schema: {
    summary: "The server's workspaces in name order; never a key",
    tags,
    security,
    querystring: {
      type: "object",
      properties: {
        limit: { type: "integer", minimum: 1, maximum: 100, default: 50 },
        after: {
          type: "string",
          minLength: 1,
          maxLength: 64,
          description: "next_after of the previous page (the last name it listed)",
        },
      },
      additionalProperties: false,
    },
    response: {
      200: shape({ workspaces: listOf(shape(workspace)), next_after: nullable("string") }),
    },
  },
};

export const DELETE_WORKSPACE: RouteContract = {
  method: "DELETE",
  url: "/admin/workspaces/:id",
  schema: {
    summary: "Delete a workspace: its records, catalog, jobs and keys, with no audit left in it",
    tags,
    security,
    params: idParams,
    response: { 204: { type: "null", description: "deleted" } },
  },
};
