// The requests of derivations: a manual run, promotion of a reviewed run's drafts, rebinding a
// changes watermark, and the document with its freshness (and its read triggers).
import { randomUUID } from "node:crypto";
import {
  type ArtifactDef,
  activeArtifact,
  activeCollection,
  type InstalledCatalog,
  requireCatalog,
} from "../catalog/index.js";
import type { Db, Queryable } from "../platform/db/index.js";
import { AppError } from "../platform/errors.js";
import { hashJson } from "../platform/hash.js";
import type { Workspace } from "../platform/workspace.js";
import {
  appendSystemRecord,
  currentDocument,
  insertRecords,
  lockSeq,
  type NewRecord,
} from "../records/index.js";
import { refuseWhenBacklogged } from "../worker/index.js";
import { readFreshness } from "./freshness.js";
import { activeHeads } from "./heads.js";
import { enqueueDerivation, lockState } from "./queue.js";
import { sourceHash } from "./run.js";
import { getRunRow, insertRun, listRuns, type RunRow, type RunsQuery } from "./runs.js";
import * as sql from "./sql.js";
import { pausedDerivations } from "./triggers.js";

function derivationOf(catalog: InstalledCatalog, name: string) {
  const entry = catalog.index.derivations.get(name);
  if (entry) return entry.def;
  if (catalog.index.processors.has(name)) {
    throw new AppError("request_schema", `${name} is an enrichment processor; only a derivation can be run`, {
      errors: [{ path: "name", message: "names an enrichment processor, not a derivation" }],
    });
  }
  throw new AppError("not_found", `no derivation ${name} is listed in the package`);
}

/** GET /runs: a page of runs, and the scheduled derivations their failures paused. */
export async function runsPage(db: Queryable, workspaceId: string, query: RunsQuery) {
  return { ...(await listRuns(db, workspaceId, query)), paused: await pausedDerivations(db, workspaceId) };
}

/** POST /processors/{name}/run: queues (or joins) the entity's job; no model call inline. */
export async function requestRun(db: Db, workspace: Workspace, name: string, entity: string) {
  const catalog = await requireCatalog(db, workspace.id);
  const def = derivationOf(catalog, name);
  const queued = await db.transaction(async (tx) => {
    await refuseWhenBacklogged(tx, workspace.id);
    return enqueueDerivation(tx, {
      workspaceId: workspace.id,
      derivation: def.name,
      entity,
      reason: { on: "manual", trigger: null },
    });
  });
  return {
    job_id: queued.jobId,
    enqueued: !queued.coalesced,
    coalesced: queued.coalesced,
    run_after: queued.runAfter,
  };
}

/** POST /derivations/{name}/rebind: repoints the pair's watermark and audits it in _system. */
export async function rebind(
  db: Db,
  workspace: Workspace,
  name: string,
  body: { entity: string; policy: "reset" | "carry" },
) {
  const catalog = await requireCatalog(db, workspace.id);
  const def = derivationOf(catalog, name);
  return db.transaction(async (tx) => {
    await lockSeq(tx, workspace.id);
    const state = await lockState(tx, workspace.id, def.name, body.entity);
    const before = Number(state.watermark_seq);
    const watermark = body.policy === "reset" ? 0 : before;
    const oldHash = state.source_hash;
    const newHash = sourceHash(def);
    // The generation bump holds off a run in flight: its commit writes nothing.
    await tx.query(sql.REBIND_STATE, [workspace.id, def.name, body.entity, watermark, newHash]);
    const auditId = await appendSystemRecord(tx, workspace.id, {
      entity: body.entity,
      type: "rebind",
      content: {
        derivation: def.name,
        policy: body.policy,
        old_source_hash: oldHash,
        new_source_hash: newHash,
        watermark_from: before,
        watermark_seq: watermark,
      },
    });
    return {
      derivation: def.name,
      entity: body.entity,
      policy: body.policy,
      old_source_hash: oldHash,
      new_source_hash: newHash,
      watermark_seq: watermark,
      audit_id: auditId,
    };
  });
}

function reviewedArtifact(catalog: InstalledCatalog, name: string): ArtifactDef {
  const { def: artifact } = activeArtifact(catalog, name);
  if (artifact.lifecycle !== "reviewed" || !artifact.candidate) {
    throw new AppError("request_schema", `artifact ${name} is not a reviewed artifact`, {
      errors: [{ path: "artifact", message: "must name a reviewed artifact" }],
    });
  }
  return artifact;
}

function refuse(path: string, message: string): never {
  throw new AppError("request_schema", message, { errors: [{ path, message }] });
}

interface Draft {
  id: string;
  collection: string;
  collection_version: number;
  collection_hash: string;
  entity: string;
  type: string;
  key: string;
  tombstone: boolean;
  text: string;
  content: Record<string, unknown>;
  citations: string[];
  derived_from: string[];
}

interface Promoted {
  key: string;
  draft_id: string;
  record_id: string;
}

function promotionBody(run: RunRow, promotion: RunRow, already: boolean) {
  const promoted = ((promotion.emission as { promoted?: Promoted[] } | null)?.promoted ?? []) as Promoted[];
  return {
    promotion_run_id: promotion.id,
    source_run_id: run.id,
    entity: run.entity,
    promoted,
    already_promoted: already,
  };
}

/** The receipt's head of a key (record id, or null when the key had no active head). */
function receiptHead(run: RunRow, collection: string, key: string): string | null {
  const heads = ((
    run.read_receipt as { heads?: { collection: string; key: string; record_id: string }[] } | null
  )?.heads ?? []) as { collection: string; key: string; record_id: string }[];
  return heads.find((head) => head.collection === collection && head.key === key)?.record_id ?? null;
}

/**
 * POST /promote: the reviewed run's drafts for the artifact's keys become active successors when
 * every touched active head still matches the run's read receipt; else 409 promotion_stale and
 * nothing is written. Drafts and the originals stay as they are. A repeat after success returns
 * the same promotion with already_promoted true.
 */
export async function promote(
  db: Db,
  workspace: Workspace,
  body: { entity: string; source_run_id: string; artifact: string },
) {
  const ws = workspace.id;
  const catalog = await requireCatalog(db, ws);
  const artifact = reviewedArtifact(catalog, body.artifact);
  const candidate = artifact.candidate as { derivation: string; keys: string[] };
  const run = await getRunRow(db, ws, body.source_run_id).catch((error) => {
    // An unknown run is a bad reference in the body (422), not a missing route (404).
    if (error instanceof AppError && error.code === "not_found") refuse("source_run_id", error.message);
    throw error;
  });
  if (run.operation !== "derive" || run.derivation !== candidate.derivation) {
    refuse(
      "source_run_id",
      `run ${run.id} is not a run of ${candidate.derivation}, artifact ${artifact.name}'s candidate derivation`,
    );
  }
  if (run.entity !== body.entity)
    refuse("entity", `run ${run.id} derived entity ${run.entity}, not ${body.entity}`);
  if (run.status !== "succeeded")
    refuse("source_run_id", `run ${run.id} is ${run.status}; only a succeeded run can be promoted`);
  const done = (await db.query<RunRow>(sql.PROMOTION_OF, [ws, run.id])).rows[0];
  if (done) return promotionBody(run, done, true);
  const drafts = (await db.query<Draft>(sql.DRAFTS_OF_RUN, [ws, run.id])).rows.filter((d) =>
    candidate.keys.includes(d.key),
  );
  const missing = candidate.keys.filter((key) => !drafts.some((draft) => draft.key === key));
  if (missing.length > 0) {
    refuse("source_run_id", `run ${run.id} wrote no draft for the artifact's key(s) ${missing.join(", ")}`);
  }
  const derivation = catalog.index.derivations.get(run.derivation)?.def;
  if (!derivation) refuse("source_run_id", `derivation ${run.derivation} is no longer listed in the package`);
  return db.transaction(async (tx) => {
    const lastSeq = await lockSeq(tx, ws);
    const again = (await tx.query<RunRow>(sql.PROMOTION_OF, [ws, run.id])).rows[0];
    if (again) return promotionBody(run, again, true);
    await checkReceipt(tx, ws, run, derivation.emit.collection, drafts);
    const promotionId = randomUUID();
    await insertRun(tx, {
      workspaceId: ws,
      id: promotionId,
      operation: "promote",
      derivation: run.derivation,
      entity: run.entity,
      sourceKind: run.source_kind,
      jobId: null,
      sourceRunId: run.id,
      reasons: [{ on: "manual", trigger: null }],
      catalog,
    });
    const { rows: inserted } = await insertRecords(tx, {
      workspaceId: ws,
      catalog,
      lastSeq,
      rows: drafts.map((draft, index) => successor(catalog, draft, index, promotionId)),
    });
    const promoted = drafts.map((draft, i) => ({
      key: draft.key,
      draft_id: draft.id,
      record_id: inserted[i]?.id as string,
    }));
    const citations = [...new Set(drafts.flatMap((draft) => draft.citations))];
    await tx.query(sql.FINISH_RUN, [
      ws,
      promotionId,
      "succeeded",
      null,
      null,
      run.read_receipt ? JSON.stringify(run.read_receipt) : null,
      JSON.stringify({ collection: derivation.emit.collection, artifact: artifact.name, promoted }),
      JSON.stringify([]),
      citations,
      promoted.map((p) => p.record_id),
      JSON.stringify({ calls: 0, prompt_tokens: 0, completion_tokens: 0 }),
    ]);
    return {
      promotion_run_id: promotionId,
      source_run_id: run.id,
      entity: run.entity,
      promoted,
      already_promoted: false,
    };
  });
}

async function checkReceipt(tx: Queryable, ws: string, run: RunRow, collection: string, drafts: Draft[]) {
  const keys = drafts.map((draft) => draft.key);
  const live = await activeHeads(tx, ws, run.entity, { collection, keys });
  const stale = keys.filter(
    (key) => (live.get(key)?.record_id ?? null) !== receiptHead(run, collection, key),
  );
  if (stale.length > 0) {
    throw new AppError(
      "promotion_stale",
      `the active value of ${stale.join(", ")} changed since run ${run.id} read it; nothing was written`,
      { stale_keys: stale },
    );
  }
}

/** The active successor of a draft: same slot, text, content and provenance. */
function successor(catalog: InstalledCatalog, draft: Draft, index: number, runId: string): NewRecord {
  const collection =
    catalog.index.collections.get(`${draft.collection}@${draft.collection_version}`)?.def ??
    activeCollection(catalog.index, draft.collection)?.def;
  if (!collection) throw new AppError("request_schema", `collection ${draft.collection} is no longer listed`);
  return {
    index,
    collection,
    collectionHash: catalog.contracts[`${collection.name}@${collection.version}`] ?? draft.collection_hash,
    entity: draft.entity,
    type: draft.type,
    text: draft.text,
    content: draft.content,
    occurredAt: null,
    dedupeKey: null,
    key: draft.key,
    status: "active",
    tombstone: draft.tombstone,
    derivedFrom: draft.derived_from,
    citations: draft.citations,
    runId,
    scores: {},
    annotations: {},
    payloadHash: hashJson({ run: runId, draft: draft.id }),
  };
}

/** GET /document: the current beliefs, after firing the entity's read triggers, with freshness. */
export async function readDocument(
  db: Db,
  workspace: Workspace,
  q: { entity: string; collections?: string[]; status: "active" | "draft"; maxRecords: number; asOf?: Date },
) {
  const catalog = await requireCatalog(db, workspace.id);
  const document = await currentDocument(db, workspace.id, q);
  // A read of the past queues no derivation and reports none: freshness is about memory now.
  if (q.asOf) return { ...document, freshness: [] };
  const freshness = await readFreshness(db, {
    workspaceId: workspace.id,
    catalog,
    entity: q.entity,
    collections: q.collections,
  });
  return { ...document, freshness };
}
