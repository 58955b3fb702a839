// Retention policies of the active package (docs/catalog.md, "Package manifests";
// docs/api.md, "Retention policies"): on each policy's UTC cron, only the latest missed tick runs; it erases
// slots whose current tombstone is older than after_days (by its server-written created_at),
// at most max_pages pages of PAGE_SLOTS slots, each page one erasure (closure, hold-off,
// restored heads, and the traces an erasure clears: an entity whose last records a page removed
// is forgotten by name) with its own `retention` audit in _system.
import { activeCatalog, type RetentionPolicy } from "../catalog/index.js";
import { claimCronTick } from "../derivations/index.js";
import { eraseTarget, removalCounts } from "../erasure/index.js";
import type { Db } from "../platform/db/index.js";
import * as sql from "./sql.js";

/** Slots per page (docs/api.md, "Retention policies"). */
export const PAGE_SLOTS = 100;

const DAY_MS = 86_400_000;

export interface RetentionOptions {
  maxRecords: number;
  /** The clock; tests move it. */
  now?: Date;
}

/** Erases one page of eligible slots; returns how many slots it held. */
async function erasePage(
  db: Db,
  workspaceId: string,
  policy: RetentionPolicy,
  context: { tick: Date; page: number; cutoff: Date; maxRecords: number },
): Promise<number> {
  const [collection, version] = policy.collection.split("@") as [string, string];
  let slots = 0;
  await eraseTarget(
    db,
    workspaceId,
    {
      async seeds(tx) {
        const { rows: found } = await tx.query(sql.ELIGIBLE_SLOTS, [
          workspaceId,
          collection,
          Number(version),
          context.cutoff,
          PAGE_SLOTS,
        ]);
        slots = found.length;
        if (slots === 0) return [];
        const { rows } = await tx.query<{ id: string }>(sql.SLOT_ROWS, [
          workspaceId,
          JSON.stringify(found),
          collection,
        ]);
        return rows.map((row) => row.id);
      },
      audit: (removal) =>
        slots === 0
          ? null
          : {
              type: "retention",
              content: {
                policy: policy.name,
                collection: policy.collection,
                after_days: policy.after_days,
                tick: context.tick.toISOString(),
                page: context.page,
                slots,
                ...removalCounts(removal),
              },
            },
    },
    context.maxRecords,
  );
  return slots;
}

/** One pass over every workspace's retention policies; returns the slots erased. */
export async function runRetention(db: Db, options: RetentionOptions): Promise<number> {
  const now = options.now ?? new Date();
  const { rows: workspaces } = await db.query<{ id: string }>(sql.WORKSPACE_IDS);
  let erased = 0;
  for (const { id: workspaceId } of workspaces) {
    const catalog = await activeCatalog(db, workspaceId);
    for (const policy of catalog?.index.manifest.def.retentions ?? []) {
      const tick = await claimCronTick(db, workspaceId, `retention:${policy.name}`, policy.cron, now);
      if (!tick) continue;
      const cutoff = new Date(now.getTime() - policy.after_days * DAY_MS);
      for (let page = 1; page <= policy.max_pages; page++) {
        const slots = await erasePage(db, workspaceId, policy, {
          tick,
          page,
          cutoff,
          maxRecords: options.maxRecords,
        });
        erased += slots;
        if (slots < PAGE_SLOTS) break;
      }
    }
  }
  return erased;
}
