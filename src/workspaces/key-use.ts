// last_used_at without a write per request: a key's use is noted at most once a minute per
// process (this map), and the statement itself is a no-op when any process noted it within the
// minute, so a key costs at most one write a minute however many servers it reaches. The note
// goes to workspace_key_uses, a table no transaction writes with others (migration 0024).
import type { Queryable } from "../platform/db/index.js";
import * as sql from "./sql.js";

export const KEY_USE_INTERVAL_MS = 60_000;

const notedAt = new Map<string, number>();

/** Notes the key's use off the request's path; after a failure, the next note is a minute later. */
export function noteKeyUse(
  db: Pick<Queryable, "query">,
  keyId: string,
  lastUsedAt: Date | null,
  now: number,
): void {
  const last = Math.max(notedAt.get(keyId) ?? 0, lastUsedAt?.getTime() ?? 0);
  if (now - last < KEY_USE_INTERVAL_MS) return;
  notedAt.set(keyId, now);
  db.query(sql.TOUCH_KEY, [keyId, new Date(now), new Date(now - KEY_USE_INTERVAL_MS)]).catch(() => {});
}
