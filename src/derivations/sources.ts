// Reading a derivation's sources for one entity (docs/api.md, "How a run works":
// Sources, Watermark). Every read is bounded before it runs:
// - changes: ready evidence above the watermark, oldest first, never past the first unready row
//   of the source (so no record is skipped when it turns ready later) nor past the checkpoint;
//   cut at max_records, max_tokens and the run's remaining retrieval budget, the rest left for
//   the next run (the run then queues a continuation).
// - snapshot: every matching ready record through the checkpoint; more than max_records or
//   max_tokens fails the run `source_too_large`.
// - current: the entity's current keyed values (an unready head hides its slot: current-ness is
//   decided before readiness); the same bounds as snapshot.
// Passing max_retrieved_records or max_visible_records fails the run `limits`.
import type { DerivationDef, DerivationSource } from "../catalog/index.js";
import type { Queryable } from "../platform/db/index.js";
import { countRenderTokens, renderRow } from "../search/index.js";
import { RunFailure } from "./failure.js";
import * as sql from "./sql.js";

export interface EvidenceRecord {
  id: string;
  seq: number;
  collection: string;
  collection_version: number;
  type: string;
  key: string | null;
  status: "active" | "draft";
  tombstone: boolean;
  text: string;
  content: Record<string, unknown>;
  scores: Record<string, number>;
  depth: number;
  occurred_at: Date;
}

export interface SourceRead {
  name: string;
  kind: DerivationSource["kind"];
  records: EvidenceRecord[];
  /** The rendered row of each record (same order). */
  rows: string[];
  tokens: number;
  /** changes only: more evidence remained above what was read. */
  truncated: boolean;
  /** changes only: the highest seq this source may advance the watermark to. */
  through: number;
  /** The rows the prompt shows for this source: those no earlier source showed already. */
  shownRows: string[];
}

export interface ReadResult {
  sources: SourceRead[];
  /** Unique records shown, in render order. */
  shown: EvidenceRecord[];
  checkpoint: number;
  /** The new watermark a success records. */
  watermark: number;
  /** A changes source left evidence for a later run. */
  truncated: boolean;
}

/** A record as the model reads it: like a search row; a retraction and text-less content say so. */
export function evidenceRow(record: EvidenceRecord): string {
  const text = record.tombstone
    ? "(retracted)"
    : record.text.trim() === ""
      ? JSON.stringify(record.content)
      : record.text;
  return renderRow({ ...record, text });
}

function filterParams(workspaceId: string, entity: string, source: DerivationSource) {
  return [
    workspaceId,
    entity,
    source.collections,
    source.types,
    source.statuses,
    source.keyed === "any" ? null : source.keyed,
    source.keys,
  ];
}

interface Budget {
  retrieved: number;
  visible: Set<string>;
}

function failLimits(def: DerivationDef, what: "max_retrieved_records" | "max_visible_records"): never {
  throw new RunFailure(
    "limits",
    `reading the sources would pass limits.${what} (${def.limits[what]}); the run stopped before reading more`,
  );
}

/** Renders rows in order while the source's token bound holds; returns how many fit. */
function renderWithin(records: EvidenceRecord[], maxTokens: number | null) {
  const rows: string[] = [];
  let tokens = 0;
  for (const record of records) {
    const row = evidenceRow(record);
    const rowTokens = countRenderTokens(`${row}\n`);
    if (maxTokens !== null && tokens + rowTokens > maxTokens) break;
    rows.push(row);
    tokens += rowTokens;
  }
  return { rows, tokens };
}

async function readComplete(
  db: Queryable,
  at: { workspaceId: string; entity: string; def: DerivationDef; name: string; source: DerivationSource },
  checkpoint: number,
  budget: Budget,
): Promise<SourceRead> {
  const { def, name, source } = at;
  const bound = source.max_records ?? def.limits.max_retrieved_records;
  const limit = Math.min(bound, def.limits.max_retrieved_records - budget.retrieved) + 1;
  const params = filterParams(at.workspaceId, at.entity, source);
  const { rows: records } = await db.query<EvidenceRecord>(
    source.kind === "current" ? sql.SOURCE_CURRENT : sql.SOURCE_RANGE,
    source.kind === "current" ? [...params, limit] : [...params, 0, checkpoint, null, limit],
  );
  if (records.length > bound) {
    throw new RunFailure(
      "source_too_large",
      `source ${name} (${source.kind}) holds more than ${bound} records${source.max_records ? " (max_records)" : ""}`,
    );
  }
  if (budget.retrieved + records.length > def.limits.max_retrieved_records)
    failLimits(def, "max_retrieved_records");
  const rendered = renderWithin(records, source.max_tokens);
  if (rendered.rows.length < records.length) {
    throw new RunFailure(
      "source_too_large",
      `source ${name} (${source.kind}) renders to more than max_tokens (${source.max_tokens}) tokens`,
    );
  }
  return {
    name,
    kind: source.kind,
    records,
    ...rendered,
    truncated: false,
    through: checkpoint,
    shownRows: [],
  };
}

async function readChanges(
  db: Queryable,
  at: { workspaceId: string; entity: string; def: DerivationDef; name: string; source: DerivationSource },
  window: { watermark: number; checkpoint: number },
  budget: Budget,
): Promise<SourceRead> {
  const { def, name, source } = at;
  const params = filterParams(at.workspaceId, at.entity, source);
  const { rows: unready } = await db.query<{ seq: number | null }>(sql.FIRST_UNREADY, [
    ...params,
    window.watermark,
    window.checkpoint,
  ]);
  const firstUnready = unready[0]?.seq;
  const horizon = firstUnready == null ? window.checkpoint : Number(firstUnready) - 1;
  const room = Math.min(
    source.max_records ?? Number.POSITIVE_INFINITY,
    def.limits.max_retrieved_records - budget.retrieved,
    def.limits.max_visible_records - budget.visible.size,
  );
  const { rows: found } = await db.query<EvidenceRecord>(sql.SOURCE_RANGE, [
    ...params,
    window.watermark,
    horizon,
    def.name,
    Math.max(0, room) + 1,
  ]);
  const records = found.slice(0, Math.max(0, room));
  const rendered = renderWithin(records, source.max_tokens);
  const kept = records.slice(0, rendered.rows.length);
  const truncated = kept.length < found.length;
  if (truncated && kept.length === 0) {
    // Nothing fits: waiting would not help, the next run would stop at the same record.
    if (room <= 0) {
      failLimits(
        def,
        budget.retrieved >= def.limits.max_retrieved_records
          ? "max_retrieved_records"
          : "max_visible_records",
      );
    }
    throw new RunFailure(
      "source_too_large",
      `source ${name} (changes): the next record alone renders to more than max_tokens (${source.max_tokens}) tokens`,
    );
  }
  const last = kept[kept.length - 1];
  return {
    name,
    kind: "changes",
    records: kept,
    ...rendered,
    truncated,
    through: truncated ? (last ? Number(last.seq) : window.watermark) : horizon,
    shownRows: [],
  };
}

/**
 * Reads every source (complete ones first, then changes with the budget left) and checks the
 * visible bound. `watermark` is the pair's current watermark, `checkpoint` the workspace's last
 * seq when the run started.
 */
export async function readSources(
  db: Queryable,
  run: { workspaceId: string; entity: string; def: DerivationDef; watermark: number; checkpoint: number },
): Promise<ReadResult> {
  const { def } = run;
  const budget: Budget = { retrieved: 0, visible: new Set() };
  const entries = Object.entries(def.sources);
  const ordered = [
    ...entries.filter(([, source]) => source.kind !== "changes"),
    ...entries.filter(([, source]) => source.kind === "changes"),
  ];
  const reads = new Map<string, SourceRead>();
  for (const [name, source] of ordered) {
    const at = { workspaceId: run.workspaceId, entity: run.entity, def, name, source };
    const read =
      source.kind === "changes"
        ? await readChanges(db, at, run, budget)
        : await readComplete(db, at, run.checkpoint, budget);
    budget.retrieved += read.records.length;
    for (const record of read.records) budget.visible.add(record.id);
    if (budget.visible.size > def.limits.max_visible_records) failLimits(def, "max_visible_records");
    reads.set(name, read);
  }
  // Declared order for the prompt and the audit; a record two sources read is shown once.
  const sources = entries.map(([name]) => reads.get(name) as SourceRead);
  const seen = new Set<string>();
  const shown: EvidenceRecord[] = [];
  for (const source of sources) {
    source.records.forEach((record, i) => {
      if (seen.has(record.id)) return;
      seen.add(record.id);
      shown.push(record);
      source.shownRows.push(source.rows[i] as string);
    });
  }
  const changes = sources.filter((source) => source.kind === "changes");
  return {
    sources,
    shown,
    checkpoint: run.checkpoint,
    watermark: changes.length === 0 ? run.checkpoint : Math.min(...changes.map((source) => source.through)),
    truncated: changes.some((source) => source.truncated),
  };
}
