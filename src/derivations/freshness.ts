// What an entity read (GET /document; artifact renders) says about the derivations feeding it,
// and the read triggers it fires: one pass per derivation that a listed read or accumulator
// trigger feeds into the collections read (docs/api.md, "Derivation runs": freshness).
import type { DerivationDef, InstalledCatalog, TriggerDef } from "../catalog/index.js";
import type { Db } from "../platform/db/index.js";
import { liveJob } from "../worker/index.js";
import { deriveJobKey, enqueueDerivation } from "./queue.js";
import { evidenceState, listedTriggers, watermarkOf } from "./triggers.js";

export interface FreshnessEntry {
  derivation: string;
  watermark_seq: number;
  /** Ready evidence lies above the watermark. */
  dirty: boolean;
  /** Source rows of the entity still being enriched. */
  unready: number;
  /** The queued or running job of the pair. */
  job: { id: string; state: string } | null;
}

/**
 * Freshness entries sorted by derivation; a derivation with a listed read trigger whose evidence
 * is dirty gets its job queued first (cooldown and coalescing apply). `collections` undefined:
 * every collection.
 */
export async function readFreshness(
  db: Db,
  read: { workspaceId: string; catalog: InstalledCatalog; entity: string; collections?: string[] },
): Promise<FreshnessEntry[]> {
  const { workspaceId, catalog, entity, collections } = read;
  const feeding = new Map<string, { derivation: DerivationDef; read: TriggerDef | null }>();
  for (const on of ["accumulator", "read"] as const) {
    for (const { trigger, derivation } of listedTriggers(catalog, on)) {
      if (collections && !collections.includes(derivation.emit.collection)) continue;
      const known = feeding.get(derivation.name);
      feeding.set(derivation.name, { derivation, read: on === "read" ? trigger : (known?.read ?? null) });
    }
  }
  const entries: FreshnessEntry[] = [];
  for (const name of [...feeding.keys()].sort()) {
    const { derivation, read: trigger } = feeding.get(name) as {
      derivation: DerivationDef;
      read: TriggerDef | null;
    };
    const watermark = await watermarkOf(db, workspaceId, name, entity);
    const evidence = await evidenceState(db, workspaceId, derivation, entity, watermark);
    if (trigger && evidence.dirty) {
      await db.transaction((tx) =>
        enqueueDerivation(tx, {
          workspaceId,
          derivation: name,
          entity,
          reason: { on: "read", trigger: trigger.name },
          cooldownS: trigger.cooldown_s ?? 0,
        }),
      );
    }
    const job = await liveJob(db, workspaceId, deriveJobKey(name, entity));
    entries.push({
      derivation: name,
      watermark_seq: watermark,
      dirty: evidence.dirty,
      unready: evidence.unready,
      job: job ? { id: job.id, state: job.state } : null,
    });
  }
  return entries;
}
