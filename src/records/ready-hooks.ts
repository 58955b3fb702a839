// Records that turn ready (written ready, or enriched) are what triggers watch. The records
// module must not import the derivations module (which writes records), so the composition root
// registers the derivations' trigger check here once; it runs inside the transaction that makes
// the rows ready, so a trigger can never be lost between the two.
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

/** Registers the one hook (main.ts wiring); a second registration replaces the first. */
export function onRecordsReady(registered: ReadyHook): void {
  hook = registered;
}

export async function recordsReady(
  tx: Queryable,
  event: { workspaceId: string; catalog: InstalledCatalog; records: ReadyRecord[] },
): Promise<void> {
  if (hook && event.records.length > 0) await hook(tx, event);
}
