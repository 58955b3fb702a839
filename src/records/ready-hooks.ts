// Records that turn ready (written ready, or enriched) are what triggers watch. The records
// module must not import the derivations module (which writes records), so every entry point
// registers the derivations' trigger check here before its first write (wireModules,
// src/deps.ts); records turning ready before that throw rather than fire no trigger. The check
// runs inside the transaction that makes the rows ready, so a trigger can never be lost between
// the two.
import type { InstalledCatalog } from "../catalog/index.js";
import type { Queryable } from "../platform/db/index.js";

export interface ReadyRecord {
  id: string;
  seq: number;
  entity: string;
  collection: string;
  run_id: string | null;
}

export type ReadyHook = (
  tx: Queryable,
  event: { workspaceId: string; catalog: InstalledCatalog; records: ReadyRecord[] },
) => Promise<void>;

let hook: ReadyHook | undefined;

/** Registers the one hook (src/deps.ts wireModules); a second registration replaces the first. */
export function onRecordsReady(registered: ReadyHook): void {
  hook = registered;
}

export async function recordsReady(
  tx: Queryable,
  event: { workspaceId: string; catalog: InstalledCatalog; records: ReadyRecord[] },
): Promise<void> {
  if (!hook) {
    throw new Error(
      "records were written before the ready hook was registered: the entry point must call wireModules() (src/deps.ts) first",
    );
  }
  if (event.records.length > 0) await hook(tx, event);
}
