// A workspace's keys (docs/api.md, "Keys: several per workspace, read-only, expiring, revocable"):
// several live at once, so a key is rotated by creating another, switching clients, then revoking
// the old one. A key is shown once, when created; only its digest and its prefix are stored.
import type { Queryable } from "../platform/db/index.js";
import { AppError, validationError } from "../platform/errors.js";
import { isUuid } from "../platform/input.js";
import { generateKey, isWellFormedKey, keyDigest, keyPrefix } from "./keys.js";
import * as sql from "./sql.js";

/** admin: everything read_write may, and managing the workspace's keys (GET/POST/DELETE /keys). */
export const KEY_SCOPES = ["admin", "read_write", "read_only"] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];
/** The scopes POST /keys gives: an admin key comes with its workspace only. */
export const GRANTABLE_SCOPES = ["read_write", "read_only"] as const;

export interface KeyInfo {
  id: string;
  name: string;
  scope: KeyScope;
  /** egk_ and the key's next 8 characters; null for a key made before prefixes were kept. */
  prefix: string | null;
  created_at: Date;
  last_used_at: Date | null;
  expires_at: Date | null;
  revoked_at: Date | null;
}

/** A revoked key as `key revoke` reports it. */
export type RevokedKey = Omit<KeyInfo, "last_used_at">;

export interface CreatedKey {
  workspace: string;
  id: string;
  name: string;
  scope: KeyScope;
  prefix: string;
  /** Shown once; only its digest and prefix are stored. */
  api_key: string;
  expires_at: Date | null;
}

export interface KeyOptions {
  name?: string;
  scope?: KeyScope;
  /** Milliseconds from `now` until the key stops working; none for a key that does not expire. */
  expiresInMs?: number;
  now?: number;
}

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;
// Ten years: beyond that an expiry is a typo, not a policy.
const MAX_EXPIRY_MS = 3650 * UNIT_MS.d;
const DURATION = /^([1-9][0-9]{0,6})([smhdw])$/;

/** "30d", "12h", "90m", "45s", "2w" in milliseconds. */
export function parseDuration(text: string, path = "expires_in"): number {
  const match = DURATION.exec(text.trim());
  const ms = match ? Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS] : Number.NaN;
  if (!(ms > 0 && ms <= MAX_EXPIRY_MS)) {
    const message = "use a whole number and a unit s, m, h, d or w (like 30d or 12h), at most 3650d";
    throw validationError(`invalid duration "${text}": ${message}`, [{ path, message }]);
  }
  return ms;
}

// Labels are for people reading `key list` in a terminal: printable, on one line, and shown as
// written. Control characters (Cc), invisible format characters (Cf: the bidi controls U+200E,
// U+200F, U+061C, U+202A-U+202E and U+2066-U+2069, zero-width characters), line and paragraph
// separators and lone surrogates would let a name look like another or reorder the line it is
// printed on.
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;
const NAME_RULE = "a key name is 1 to 100 printable characters on one line";

function checkName(name: string): string {
  const trimmed = name.trim();
  const hidden = HIDDEN.exec(trimmed)?.[0];
  if (hidden !== undefined) {
    const code = (hidden.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0");
    throw new AppError(
      "request_schema",
      `${NAME_RULE}: U+${code} is a control or invisible formatting character (bidi controls included)`,
    );
  }
  if (trimmed.length === 0 || [...trimmed].length > 100) throw new AppError("request_schema", NAME_RULE);
  return trimmed;
}

/** Adds a key to the workspace (its id) and returns it, the only time it is shown. */
export async function insertKey(
  db: Queryable,
  workspace: { id: string; name: string },
  options: KeyOptions = {},
): Promise<CreatedKey> {
  const scope = options.scope ?? "read_write";
  if (!KEY_SCOPES.includes(scope)) throw new AppError("request_schema", `unknown key scope "${scope}"`);
  const name = checkName(options.name ?? "default");
  const expiresAt =
    options.expiresInMs === undefined ? null : new Date((options.now ?? Date.now()) + options.expiresInMs);
  const apiKey = generateKey();
  const { rows } = await db.query<KeyInfo>(sql.INSERT_KEY, [
    workspace.id,
    name,
    scope,
    keyDigest(apiKey),
    keyPrefix(apiKey),
    expiresAt,
  ]);
  const row = rows[0] as KeyInfo;
  return {
    workspace: workspace.name,
    id: row.id,
    name: row.name,
    scope,
    prefix: keyPrefix(apiKey),
    api_key: apiKey,
    expires_at: row.expires_at,
  };
}

export async function listKeys(db: Queryable, workspaceId: string): Promise<KeyInfo[]> {
  return (await db.query<KeyInfo>(sql.LIST_KEYS, [workspaceId])).rows;
}

export interface RevokeOptions {
  /**
   * Whether the key itself may name it (the CLI, on the server's machine). Over HTTP only ids
   * do: a key in a URL would travel to proxies and request logs.
   */
  byKey?: boolean;
  now?: number;
}

/**
 * Revokes one of the workspace's keys, named by its id or by the key itself (what leaked); it
 * stops authorizing with the next request. A key of another workspace is not found.
 */
export async function revokeKey(
  db: Queryable,
  workspace: { id: string; name: string },
  idOrKey: string,
  options: RevokeOptions = {},
): Promise<RevokedKey> {
  const isKey = isWellFormedKey(idOrKey);
  const byKey = isKey && (options.byKey ?? true);
  const row =
    byKey || isUuid(idOrKey)
      ? (
          await db.query<RevokedKey>(byKey ? sql.REVOKE_KEY_BY_DIGEST : sql.REVOKE_KEY, [
            workspace.id,
            byKey ? keyDigest(idOrKey) : idOrKey,
            new Date(options.now ?? Date.now()),
          ])
        ).rows[0]
      : undefined;
  // The message never repeats a key: a leaked one pasted here stays out of terminals and logs.
  if (!row)
    throw new AppError(
      "not_found",
      `workspace ${workspace.name} has no ${isKey ? "such key" : `key ${idOrKey}`}`,
    );
  return row;
}
