// The workspace's keys over HTTP (docs/api.md "Keys over HTTP"): list, create and revoke them
// without stopping the server. Only a key of scope admin may call them (403 key_scope).
import { GRANTABLE_SCOPES, KEY_SCOPES } from "../workspaces/index.js";
import { shape } from "./closed-object.js";
import type { RouteContract } from "./route.js";
import { idParams, listOf, nullable, str, timestamp, uuid } from "./schema-parts.js";

const tags = ["keys"];
const at = nullable("string");
const prefix = {
  type: "string",
  description: "egk_ and the key's next 8 characters: match a leaked key to its id",
} as const;

export const LIST_KEYS: RouteContract = {
  method: "GET",
  url: "/keys",
  schema: {
    summary: "The workspace's keys, oldest first, with scope, prefix and last use; never a key",
    tags,
    response: {
      200: shape({
        keys: listOf(
          shape({
            id: uuid,
            name: str,
            scope: { enum: [...KEY_SCOPES] },
            prefix: { ...prefix, type: ["string", "null"] },
            created_at: timestamp,
            last_used_at: at,
            expires_at: at,
            revoked_at: at,
          }),
        ),
      }),
    },
  },
};

export const CREATE_KEY: RouteContract = {
  method: "POST",
  url: "/keys",
  schema: {
    summary: "Add a read_write or read_only key to the workspace; the key is shown once",
    tags,
    body: {
      type: "object",
      properties: {
        name: { type: "string", minLength: 1, maxLength: 400 },
        scope: { enum: [...GRANTABLE_SCOPES] },
        expires_in: {
          type: "string",
          maxLength: 20,
          description: "a whole number and a unit s, m, h, d or w (30d, 12h), at most 3650d",
        },
      },
      required: ["name", "scope"],
      additionalProperties: false,
    },
    response: {
      201: shape({
        id: uuid,
        name: str,
        scope: { enum: [...GRANTABLE_SCOPES] },
        prefix,
        api_key: { type: "string", description: "the key; shown only in this reply" },
        expires_at: at,
      }),
    },
  },
};

export const REVOKE_KEY: RouteContract = {
  method: "DELETE",
  url: "/keys/:id",
  schema: {
    summary: "Revoke one of the workspace's keys: its next request gets 401",
    tags,
    params: idParams,
    response: { 204: { type: "null", description: "revoked (or revoked already)" } },
  },
};
