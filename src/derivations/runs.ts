// Reading runs: GET /runs (newest first, compact) and GET /runs/{id} (the whole audit and the
// ordered output records, paged). Runs hold ids, hashes, counts and reasons: never a prompt,
// evidence text or a model reply.
import type { InstalledCatalog } from "../catalog/index.js";
import type { Queryable } from "../platform/db/index.js";
import { AppError } from "../platform/errors.js";
import { hashJson } from "../platform/hash.js";
import { isUuid } from "../platform/input.js";
import * as sql from "./sql.js";

export interface RunRow {
  id: string;
  seq: number;
  operation: "derive" | "promote";
  derivation: string;
  entity: string;
  source_kind: "changes" | "snapshot" | null;
  status: "running" | "succeeded" | "failed" | "skipped";
  failure: string | null;
  failure_detail: string | null;
  job_id: string | null;
  source_run_id: string | null;
  trigger_reasons: unknown[];
  package: string;
  catalog_hash: string;
  definition_hash: string;
  config_hash: string;
  read_receipt: Record<string, unknown> | null;
  emission: Record<string, unknown> | null;
  visible_sources: unknown[] | null;
  citations: string[];
  output_ids: string[];
  usage: Record<string, number>;
  started_at: Date;
  finished_at: Date | null;
}

/** Starts a run row (status running) with the hashes of the catalog it runs under. */
export async function insertRun(
  tx: Queryable,
  run: {
    workspaceId: string;
    id: string;
    operation: RunRow["operation"];
    derivation: string;
    entity: string;
    sourceKind: RunRow["source_kind"];
    jobId: string | null;
    sourceRunId: string | null;
    reasons: unknown[];
    catalog: InstalledCatalog;
  },
): Promise<void> {
  const { catalog } = run;
  await tx.query(sql.INSERT_RUN, [
    run.workspaceId,
    run.id,
    run.operation,
    run.derivation,
    run.entity,
    run.sourceKind,
    run.jobId,
    run.sourceRunId,
    JSON.stringify(run.reasons),
    catalog.package,
    catalog.catalogHash,
    definitionHash(catalog, run.derivation),
    catalog.hashes["conf:models"] ?? "",
  ]);
}

/** A derivation's definition as its runs record it: a publish that changes it changes this. */
function definitionHash(catalog: InstalledCatalog, derivation: string): string {
  return (
    catalog.hashes[`derivations:${derivation}`] ??
    hashJson(catalog.index.derivations.get(derivation)?.def ?? null)
  );
}

/**
 * Runs in a row that pause a scheduled derivation (docs/catalog.md, "Triggers"): when its last
 * PAUSE_AFTER_FAILURES ended runs under its current definition all failed, cron ticks queue nothing
 * for it until a run succeeds (POST /processors/{name}/run) or a publish changes its definition.
 */
export const PAUSE_AFTER_FAILURES = 10;

export interface PausedDerivation {
  derivation: string;
  failed_runs: number;
  /** When the oldest of those failed runs started. */
  since: Date;
  /** The newest one's failure class. */
  last_failure: string | null;
}

/** The derivation's pause, or undefined while it is not paused. */
export async function derivationPause(
  db: Queryable,
  workspaceId: string,
  catalog: InstalledCatalog,
  derivation: string,
): Promise<PausedDerivation | undefined> {
  const { rows } = await db.query<{
    status: string;
    failure: string | null;
    definition_hash: string;
    started_at: Date;
  }>(sql.LAST_ENDED_RUNS, [workspaceId, derivation, PAUSE_AFTER_FAILURES]);
  const current = definitionHash(catalog, derivation);
  const failing = rows.filter((row) => row.status === "failed" && row.definition_hash === current);
  if (failing.length < PAUSE_AFTER_FAILURES || failing.length !== rows.length) return undefined;
  return {
    derivation,
    failed_runs: failing.length,
    since: (failing.at(-1) as { started_at: Date }).started_at,
    last_failure: failing[0]?.failure ?? null,
  };
}

export function runSummary(run: RunRow) {
  return {
    id: run.id,
    seq: Number(run.seq),
    operation: run.operation,
    processor: run.derivation,
    derivation: run.derivation,
    entity: run.entity,
    source_kind: run.source_kind,
    status: run.status,
    failure: run.failure,
    job_id: run.job_id,
    source_run_id: run.source_run_id,
    output_count: run.output_ids.length,
    started_at: run.started_at,
    finished_at: run.finished_at,
  };
}

export interface RunsQuery {
  entity?: string;
  processor?: string;
  operation?: "derive" | "promote";
  source?: "changes" | "snapshot";
  status?: RunRow["status"];
  limit: number;
  before_seq?: number;
}

export async function listRuns(db: Queryable, workspaceId: string, q: RunsQuery) {
  const { rows } = await db.query<RunRow>(sql.LIST_RUNS, [
    workspaceId,
    q.entity ?? null,
    q.processor ?? null,
    q.operation ?? null,
    q.source ?? null,
    q.status ?? null,
    q.before_seq ?? null,
    q.limit + 1,
  ]);
  const more = rows.length > q.limit;
  const kept = more ? rows.slice(0, q.limit) : rows;
  return {
    runs: kept.map(runSummary),
    next_before_seq: more ? Number(kept[kept.length - 1]?.seq) : null,
  };
}

export async function getRunRow(db: Queryable, workspaceId: string, id: string): Promise<RunRow> {
  const run = isUuid(id)
    ? (await db.query<RunRow>(sql.GET_RUN, [workspaceId, id.toLowerCase()])).rows[0]
    : undefined;
  if (!run) throw new AppError("not_found", `no run ${id}`);
  return run;
}

export async function getRun(
  db: Queryable,
  workspaceId: string,
  id: string,
  page: { output_offset: number; output_limit: number },
) {
  const run = await getRunRow(db, workspaceId, id);
  const ids = run.output_ids.slice(page.output_offset, page.output_offset + page.output_limit);
  const { rows: records } = await db.query(sql.OUTPUT_RECORDS, [workspaceId, ids]);
  const emission = run.emission ?? {};
  return {
    ...runSummary(run),
    failure_detail: run.failure_detail,
    package: run.package,
    catalog_hash: run.catalog_hash,
    definition_hash: run.definition_hash,
    config_hash: run.config_hash,
    model_usage: run.usage,
    content: {
      trigger_reasons: run.trigger_reasons,
      candidate_set: emission.candidate_set ?? { covered_keys: [], divergence: [] },
    },
    read_receipt: run.read_receipt,
    emission,
    expected_active_heads: emission.expected_active_heads ?? [],
    keyed_divergence: emission.keyed_divergence ?? [],
    visible_sources: run.visible_sources ?? [],
    citations: run.citations,
    output_ids: ids,
    output_total: run.output_ids.length,
    output_offset: page.output_offset,
    output_limit: page.output_limit,
    records,
  };
}
