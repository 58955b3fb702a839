// Tables of a bench run (Markdown, readable on a terminal too) and the machine description.
import os from "node:os";
import type { Latency } from "./clients.js";
import type { EraseFigures } from "./erase.js";
import { MODES, type ModeName } from "./modes.js";
import type { RecallFigure } from "./recall.js";
import type { ModeFigures } from "./search.js";
import type { VectorRecallFigure } from "./vector-recall.js";
import type { IngestFigures } from "./write-corpus.js";

export interface SizeResult {
  records: number;
  server_version: string;
  /** The engine and vector index that served the searches (postgres/hnsw, postgres/exact, pglite/hnsw). */
  layout: string;
  corpus: Record<string, unknown>;
  /** How the base corpus was written (absent in older runs: api). */
  load?: "api" | "bulk";
  /** Absent when a reused database was measured (--reuse): nothing was written. */
  ingest?: IngestFigures;

  search: Partial<Record<ModeName, ModeFigures>>;
  erase?: EraseFigures;
  /** Text proposals against scoring every match (bench/recall.ts); absent in older runs. */
  recall?: Partial<Record<ModeName, RecallFigure>>;
  /** Vector proposals against scoring every embedding (bench/vector-recall.ts); pgvector only. */
  vector_recall?: Partial<Record<ModeName, VectorRecallFigure>>;
  /** The same in the first noise workspace: another tenant's share of the shared index. */
  tenant_vector_recall?: {
    workspace: string;
    rows: number;
    figures: Partial<Record<ModeName, VectorRecallFigure>>;
  };
  peak_rss_mib: number;
  database_mib: number;
  seconds: number;
}

export function machine() {
  return {
    cores: os.cpus().length,
    cpu: os.cpus()[0]?.model ?? "unknown",
    memory_gib: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
  };
}

export function table(header: string[], rows: (string | number)[][]): string {
  const cells = [header, ...rows.map((row) => row.map(String))];
  const widths = header.map((_, i) => Math.max(...cells.map((row) => (row[i] ?? "").length)));
  const line = (row: string[]) =>
    `| ${row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join(" | ")} |`;
  const rule = `|${widths.map((w, i) => (i === 0 ? `${"-".repeat(w + 1)}-` : `${"-".repeat(w + 1)}:`)).join("|")}|`;
  return [line(cells[0] as string[]), rule, ...cells.slice(1).map(line)].join("\n");
}

export const fmt = (x: number) =>
  Number.isFinite(x) ? (x >= 100 ? Math.round(x).toString() : x.toFixed(1)) : "-";

export function ingestTable(sizes: SizeResult[]): string {
  return table(
    [
      "records",
      "bulk load rows/s (write, enrich, seal s)",
      "batch 100 rows/s",
      "batch 1 rows/s (sample)",
      "enrich backlog rows/s (indexed)",
      "write-to-ready rows/s (sample; indexed)",
      "peak RSS MiB",
      "db MiB",
      "run s",
    ],
    sizes.map((s) => [s.records, ...ingestCells(s.ingest), s.peak_rss_mib, s.database_mib, s.seconds]),
  );
}

/** A size's write figures as the table shows them; a reused database (--reuse) wrote nothing. */
function ingestCells(ingest: IngestFigures | undefined): (string | number)[] {
  if (!ingest) return ["-", "-", "-", "-", "-"];
  const { bulk_load: bulk } = ingest;
  return [
    bulk ? `${bulk.rows_per_s} (${bulk.write_s}, ${bulk.enrich_s}, ${bulk.seal_s})` : "-",
    ingest.batch_100.rows_per_s,
    `${ingest.batch_1.rows_per_s} (${ingest.batch_1.rows})`,
    `${ingest.enrich_backlog.rows_per_s} (${ingest.enrich_backlog_indexed?.rows_per_s ?? "-"})`,
    `${ingest.write_to_ready.rows_per_s} (${ingest.write_to_ready.rows}; ${ingest.write_to_indexed?.rows_per_s ?? "-"})`,
  ];
}

const lat = (l: Latency) => [
  fmt(l.p50),
  fmt(l.p95),
  fmt(l.p99),
  fmt(l.rps),
  l.errors ? `${l.n} (+${l.errors} 5xx)` : l.n,
];

export function searchTable(size: SizeResult): string {
  const rows = MODES.flatMap((mode) => {
    const f = size.search[mode];
    if (!f) return [];
    return [
      [
        mode,
        ...lat(f.x1),
        ...lat(f.x8),
        fmt(f.floor.p50),
        fmt(f.floor.touch_p50),
        f.floor.statements,
        `${f.ratio.toFixed(2)}x`,
        `${f.ratio_paired.toFixed(2)}x`,
        `${Math.round(f.empty_share * 100)}%`,
      ],
    ];
  });
  return table(
    [
      "mode",
      "x1 p50",
      "p95",
      "p99",
      "req/s",
      "n",
      "x8 p50",
      "p95",
      "p99",
      "req/s",
      "n",
      "SQL floor p50",
      "of it touch",
      "stmts",
      "API/SQL p50s",
      "paired",
      "empty",
    ],
    rows,
  );
}

/** The slowest mode of a size, with the plan of its typical request's slowest statement. */
export function slowestTable(size: SizeResult): string {
  const modes = MODES.flatMap((mode) => {
    const f = size.search[mode];
    return f ? [{ mode, f }] : [];
  });
  const worst = modes.sort((a, b) => b.f.x1.p50 - a.f.x1.p50)[0];
  if (!worst?.f.explain) return "";
  const e = worst.f.explain;
  return [
    `Slowest mode at ${size.records} records: ${worst.mode} (x1 p50 ${fmt(worst.f.x1.p50)} ms). Its median request's`,
    `floor is ${fmt(e.request_floor_ms)} ms, of which its slowest statement takes ${fmt(e.statement_ms)} ms:`,
    "",
    "```",
    e.sql.length > 400 ? `${e.sql.slice(0, 400)} ...` : e.sql,
    "",
    ...e.plan.slice(0, 30),
    ...(e.plan.length > 30 ? ["..."] : []),
    "```",
  ].join("\n");
}

/** The erasure of one entity and its closure, and search p50 before and after. */
export function eraseTable(size: SizeResult): string {
  const e = size.erase;
  if (!e) return "";
  const modes = Object.keys(e.search_p50_before) as ModeName[];
  return [
    `Erasure at ${size.records} records: one entity of ${e.entity_records} records and ${e.derived_records} derived records (two levels, other entities): ${e.deleted} deleted in ${fmt(e.erase_ms)} ms`,
    "",
    table(
      ["search p50 ms (x1)", ...modes],
      [
        ["before", ...modes.map((m) => fmt(e.search_p50_before[m] ?? Number.NaN))],
        ["after", ...modes.map((m) => fmt(e.search_p50_after[m] ?? Number.NaN))],
      ],
    ),
  ].join("\n");
}

/** A titled table of one figure per mode, or nothing when no mode has one. */
function modeTable<F>(
  title: string,
  header: string[],
  figures: Partial<Record<ModeName, F>> | undefined,
  row: (figure: F) => string[],
): string {
  const modes = Object.keys(figures ?? {}) as ModeName[];
  if (modes.length === 0) return "";
  return [
    title,
    "",
    table(
      ["mode", ...header],
      modes.map((mode) => [mode, ...row(figures?.[mode] as F)]),
    ),
  ].join("\n");
}

/** Recall@20 of the text proposals from the cells against brute-force BM25. */
export function recallTable(size: SizeResult): string {
  return modeTable<RecallFigure>(
    `Text proposals at ${size.records} records: cells against scoring every match (recall@20 of the brute-force BM25 top 20)`,
    ["text parts", "recall@20 mean", "min", "cells ms p50", "exhaustive ms p50"],
    size.recall,
    (r) => [String(r.parts), String(r.mean), String(r.min), fmt(r.cells_ms_p50), fmt(r.exhaustive_ms_p50)],
  );
}

/** Recall@20 of the vector proposals (HNSW) against scoring every embedding, in one workspace. */
export function vectorRecallTable(
  title: string,
  figures: Partial<Record<ModeName, VectorRecallFigure>> | undefined,
): string {
  return modeTable<VectorRecallFigure>(
    `${title}: as searched against scoring every embedding (recall@20 of the exact top 20, ties counted)`,
    [
      "vector lists",
      "depth",
      "recall@20 mean",
      "min",
      "pool mean",
      "pool min",
      "proposed ms p50",
      "exact ms p50",
    ],
    figures,
    (r) => [
      String(r.parts),
      String(r.depth),
      String(r.mean),
      String(r.min),
      String(r.pool_mean ?? "-"),
      String(r.pool_min ?? "-"),
      fmt(r.proposed_ms_p50),
      fmt(r.exact_ms_p50),
    ],
  );
}

/** Everything of one database's run, as Markdown. */
export function report(run: {
  db: string;
  layout: string;
  server_version: string;
  seed: number;
  commit: string;
  src_dirty: boolean;
  options: { embedder: string };
  sizes: SizeResult[];
}) {
  const m = machine();
  const parts = [
    `## ${run.layout} (PostgreSQL ${run.server_version}), seed ${run.seed}, ${run.options.embedder} embedder, commit ${run.commit}${run.src_dirty ? " + uncommitted src changes" : ""}`,
    `${m.cores} cores (${m.cpu}), ${m.memory_gib} GiB, Node ${m.node}`,
    "",
    "Ingest (rows/s; batch 1 and write-to-ready on the sample shown in brackets)",
    "",
    ingestTable(run.sizes),
  ];
  for (const size of run.sizes) {
    parts.push(
      "",
      `Search at ${size.records} records: latency ms at 1 (x1) and 8 (x8) concurrent clients, raw SQL floor ms`,
      "",
      searchTable(size),
      "",
      slowestTable(size),
      "",
      recallTable(size),
      "",
      vectorRecallTable(`Vector proposals at ${size.records} records`, size.vector_recall),
      ...(size.tenant_vector_recall
        ? [
            "",
            vectorRecallTable(
              `Vector proposals in ${size.tenant_vector_recall.workspace} (${size.tenant_vector_recall.rows} records)`,
              size.tenant_vector_recall.figures,
            ),
          ]
        : []),
      "",
      eraseTable(size),
    );
  }
  return parts.join("\n");
}
