// Firing triggers (catalog/families/triggers.ts defines them): write and accumulator triggers run in the
// transaction that makes records ready (records/ready-hooks.ts), read triggers on document and
// artifact reads, cron triggers on the worker's clock. Only triggers the package lists fire; a
// derivation's own output never fires its own triggers.
import { Cron } from "croner";
import {
  activeCatalog,
  type DerivationDef,
  type InstalledCatalog,
  type TriggerDef,
} from "../catalog/index.js";
import type { Db, Queryable } from "../platform/db/index.js";
import { yieldTurn } from "../platform/event-loop.js";
import type { ReadyHook, ReadyRecord } from "../records/index.js";
import { queuedWithReason } from "../worker/index.js";
import { deriveJobKey, enqueueDerivation, type TriggerReason } from "./queue.js";
import { derivationPause, type PausedDerivation } from "./runs.js";
import * as sql from "./sql.js";

/** Every collection a derivation reads (all sources). */
export function sourceCollections(def: DerivationDef): string[] {
  return [...new Set(Object.values(def.sources).flatMap((source) => source.collections))];
}

export function listedTriggers(catalog: InstalledCatalog, on: TriggerDef["on"]) {
  return [...catalog.index.triggers.values()]
    .map((entry) => entry.def)
    .filter((def) => def.on === on)
    .flatMap((trigger) => {
      const derivation = catalog.index.derivations.get(trigger.derivation)?.def;
      return derivation ? [{ trigger, derivation }] : [];
    });
}

/** The records of a batch that are evidence for a derivation: not its own output. */
async function foreignRecords(
  tx: Queryable,
  workspaceId: string,
  records: ReadyRecord[],
): Promise<(derivation: string) => ReadyRecord[]> {
  const runIds = [...new Set(records.flatMap((r) => (r.run_id ? [r.run_id] : [])))];
  const runs = new Map<string, string>();
  if (runIds.length > 0) {
    const { rows } = await tx.query<{ id: string; derivation: string }>(sql.RUN_IDS_OF, [
      workspaceId,
      runIds,
    ]);
    for (const row of rows) runs.set(row.id, row.derivation);
  }
  return (derivation) => records.filter((r) => !r.run_id || runs.get(r.run_id) !== derivation);
}

/** The entities whose queued job of the derivation already lists this reason. */
async function queuedFor(
  tx: Queryable,
  workspaceId: string,
  derivation: string,
  entities: string[],
  reason: TriggerReason,
): Promise<Set<string>> {
  if (entities.length === 0) return new Set();
  return new Set(
    await queuedWithReason(tx, workspaceId, {
      coalesceKeys: entities.map((entity) => deriveJobKey(derivation, entity)),
      reason,
    }),
  );
}

/** The ready hook: write and accumulator triggers for the entities whose records turned ready. */
export const fireReadyTriggers: ReadyHook = async (tx, { workspaceId, catalog, records }) => {
  const watched = [...listedTriggers(catalog, "write"), ...listedTriggers(catalog, "accumulator")];
  if (watched.length === 0) return;
  const evidenceFor = await foreignRecords(tx, workspaceId, records);
  for (const { trigger, derivation } of watched) {
    const collections = trigger.collections ?? sourceCollections(derivation);
    const entities = [
      ...new Set(
        evidenceFor(derivation.name)
          .filter((r) => collections.includes(r.collection))
          .map((r) => r.entity),
      ),
    ].sort();
    const reason = { on: trigger.on, trigger: trigger.name };
    // An entity whose queued job already carries this reason needs nothing more: joining it
    // again would change nothing, and enrichment calls this hook for every sub-batch.
    const waiting = await queuedFor(tx, workspaceId, derivation.name, entities, reason);
    const pending = entities.filter((entity) => !waiting.has(entity));
    if (pending.length === 0) continue;
    if (trigger.accumulator) {
      const { metric, threshold, cooldown_s } = trigger.accumulator;
      const { rows } = await tx.query<{ entity: string; total: number }>(sql.ACCUMULATED, [
        workspaceId,
        pending,
        collections,
        metric,
        derivation.name,
      ]);
      for (const row of rows) {
        if (row.total < threshold) continue;
        await enqueueDerivation(tx, {
          workspaceId,
          derivation: derivation.name,
          entity: row.entity,
          reason,
          cooldownS: cooldown_s,
        });
      }
      continue;
    }
    for (const entity of pending) {
      await enqueueDerivation(tx, {
        workspaceId,
        derivation: derivation.name,
        entity,
        reason,
        cooldownS: trigger.cooldown_s ?? 0,
      });
    }
  }
};

/** Whether the entity's sources hold ready evidence above the watermark, and unready rows. */
export async function evidenceState(
  db: Queryable,
  workspaceId: string,
  derivation: DerivationDef,
  entity: string,
  watermark: number,
): Promise<{ dirty: boolean; unready: number }> {
  const { rows } = await db.query<{ dirty: boolean; unready: number }>(sql.EVIDENCE_STATE, [
    workspaceId,
    entity,
    sourceCollections(derivation),
    derivation.name,
    watermark,
  ]);
  return rows[0] ?? { dirty: false, unready: 0 };
}

/** The watermark of a (derivation, entity) pair (0 before its first successful run). */
export async function watermarkOf(
  db: Queryable,
  workspaceId: string,
  derivation: string,
  entity: string,
): Promise<number> {
  const { rows } = await db.query<{ watermark_seq: number }>(sql.GET_STATE, [
    workspaceId,
    derivation,
    entity,
  ]);
  return Number(rows[0]?.watermark_seq ?? 0);
}

/**
 * Most entities one cron tick queues for one derivation (docs/catalog.md, "Triggers"); the rest
 * wait for the next tick, which a schedule may not fire sooner than CRON_MIN_INTERVAL_S.
 */
export const CRON_ENTITIES_MAX = 1_000;
/** Jobs queued per transaction: a tick never holds the store (PGlite's one connection) for long. */
const CRON_CHUNK = 100;

/** The latest tick of a UTC cron expression strictly before `now`. */
function latestTick(expression: string, now: Date): Date | null {
  return new Cron(expression, { timezone: "UTC", paused: true }).previousRuns(1, now)[0] ?? null;
}

/**
 * Claims the latest tick of a UTC cron for one scheduled name of a workspace (a cron trigger, or
 * a retention policy as "retention:<name>"): that tick when it is newer than the last one
 * claimed, null on first sight (the tick is only recorded) or when it was claimed already, by
 * this worker or another. Missed ticks are never replayed.
 */
export async function claimCronTick(
  tx: Queryable,
  workspaceId: string,
  name: string,
  cron: string,
  now: Date,
): Promise<Date | null> {
  const tick = latestTick(cron, now);
  if (!tick) return null;
  const claimed = await tx.query<{ fired: boolean }>(sql.CLAIM_TICK, [workspaceId, name, tick]);
  return claimed.rows[0]?.fired ? tick : null;
}

/**
 * One pass of the cron triggers of every workspace: a trigger seen for the first time records
 * its latest tick without firing; afterwards, when a newer tick has passed, only that latest tick
 * fires (missed ticks are not replayed), once across all workers (the tick row is claimed). A
 * fired tick queues its entities in transactions of CRON_CHUNK jobs, so other requests are
 * served between them; a tick cut short by a crash leaves its entities dirty for the next one.
 */
export async function runCronTriggers(db: Db, now = new Date()): Promise<number> {
  const { rows: workspaces } = await db.query<{ id: string }>(sql.WORKSPACE_IDS);
  let queued = 0;
  for (const { id: workspaceId } of workspaces) {
    const catalog = await activeCatalog(db, workspaceId);
    if (!catalog) continue;
    for (const { trigger, derivation } of listedTriggers(catalog, "cron")) {
      const fired = await db.transaction((tx) =>
        claimCronTick(tx, workspaceId, trigger.name, trigger.cron as string, now),
      );
      // A derivation whose runs keep failing under its definition is paused: the tick passes.
      if (!fired || (await derivationPause(db, workspaceId, catalog, derivation.name))) continue;
      const { rows } = await db.query<{ entity: string }>(sql.DIRTY_ENTITIES, [
        workspaceId,
        sourceCollections(derivation),
        derivation.name,
        CRON_ENTITIES_MAX,
      ]);
      for (let at = 0; at < rows.length; at += CRON_CHUNK) {
        // A macrotask turn between chunks: on PGlite awaits alone never let a request in.
        await yieldTurn();
        await db.transaction(async (tx) => {
          for (const { entity } of rows.slice(at, at + CRON_CHUNK)) {
            await enqueueDerivation(tx, {
              workspaceId,
              derivation: derivation.name,
              entity,
              reason: { on: "cron", trigger: trigger.name },
            });
          }
        });
      }
      queued += rows.length;
    }
  }
  return queued;
}

/** The paused scheduled derivations of the workspace's active catalog (GET /runs). */
export async function pausedDerivations(db: Queryable, workspaceId: string): Promise<PausedDerivation[]> {
  const catalog = await activeCatalog(db, workspaceId);
  if (!catalog) return [];
  const scheduled = new Set(listedTriggers(catalog, "cron").map(({ derivation }) => derivation.name));
  const paused = await Promise.all(
    [...scheduled].map((name) => derivationPause(db, workspaceId, catalog, name)),
  );
  return paused.filter((pause): pause is PausedDerivation => pause !== undefined);
}
