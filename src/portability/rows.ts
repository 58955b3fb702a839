// Writing an import's row lines, a batch at a time, into the importing workspace: each kind's
// INSERT reads the lines with the table's row type and names the importer's workspace_id. Records
// that need enrichment are queued for it in the same transaction (no lost work).
import type { InstalledCatalog } from "../catalog/index.js";
import type { Db, Queryable } from "../platform/db/index.js";
import { canDeferVectors, ENRICH_JOB, embeddingLeadValues, queueBackfillJob } from "../records/index.js";
import { enqueue } from "../worker/index.js";
import { fileError } from "./format.js";
import { BACKFILL, EMBEDDING, embeddingKind, RECORD, RUN, TABLE_KINDS } from "./kinds.js";
import { DEFERRED_EMBEDDING, REEMBED_FLAGS, REEMBEDDED_RECORD } from "./row-sql.js";
import * as sql from "./sql.js";

/** A batch of lines of one kind, as read and as parsed. */
export interface Batch {
  kind: string;
  /** The file's line number of the first. */
  first: number;
  lines: string[];
  rows: Record<string, unknown>[];
}

export interface RowTarget {
  workspaceId: string;
  /** The file holds embeddings: records keep their readiness and vectors. */
  withEmbeddings: boolean;
  /** The active catalog the import installed, if any. */
  catalog: InstalledCatalog | undefined;
}

/** The collection versions whose records need an embedding processor to be ready ("name@version"). */
function embeddedCollections(catalog: InstalledCatalog | undefined): Set<string> {
  if (!catalog) return new Set();
  return new Set(
    [...catalog.index.collections.entries()].flatMap(([id, entry]) =>
      entry.def.required_processors.some(
        (name) => catalog.index.processors.get(name)?.def.kind === "embedding",
      )
        ? [id]
        : [],
    ),
  );
}

export function rowWriter(db: Pick<Db, "hasVector" | "distributed">, tx: Queryable, target: RowTarget) {
  const { workspaceId } = target;
  const embedded = embeddedCollections(target.catalog);
  // Without the file's vectors a record whose collection embeds is enriched again before search
  // finds it: imported unready, with no search projection, as a new write would be.
  const recordSql = sql.importBatchSql(RECORD, {
    extra: [REEMBED_FLAGS],
    values: REEMBEDDED_RECORD,
  });
  // Vectors are stored deferred where their space's index takes them in bulk later
  // (src/records/vector-seal.ts): one at a time into an HNSW graph costs five times as much.
  // With pgvector, the first of each vector leads its copies (src/records/vector-leads.ts).
  const embeddingSql = sql.importBatchSql(embeddingKind(db.hasVector), {
    values: {
      ...(canDeferVectors(db) ? { deferred: DEFERRED_EMBEDDING } : {}),
      ...(db.hasVector ? embeddingLeadValues("p", "l.n") : {}),
    },
  });
  // Runs are numbered by the importing database, in the file's order.
  const runSql = sql.importBatchSql(RUN, { skip: ["seq"] });
  const plainSql = new Map(TABLE_KINDS.map((kind) => [kind.name, sql.importBatchSql(kind)]));
  let enrichJobs = 0;

  async function enrich(ids: string[], payload: Record<string, unknown>): Promise<void> {
    if (ids.length === 0) return;
    await enqueue(tx, { workspaceId, kind: ENRICH_JOB, payload: { record_ids: ids, ...payload } });
    enrichJobs++;
  }

  async function writeRecords(batch: Batch): Promise<void> {
    const reembed = batch.rows.map(
      (row) =>
        !target.withEmbeddings &&
        row.ready === true &&
        embedded.has(`${row.collection}@${row.collection_version}`),
    );
    await tx.query(recordSql, [workspaceId, batch.lines, reembed]);
    // Records unready where they were exported lost their job with the queue: queued again, and
    // their triggers fire when they turn ready. Those made unready here were ready there, when
    // their triggers fired: they are re-embedded without firing them again.
    await enrich(
      batch.rows.filter((row) => row.ready !== true).map((row) => row.id as string),
      {},
    );
    await enrich(
      batch.rows.filter((_, i) => reembed[i]).map((row) => row.id as string),
      { triggers: false },
    );
  }

  /** A backfill queued or live where it was exported resumes from its cursor under a new job. */
  async function writeBackfills(batch: Batch): Promise<void> {
    await tx.query(plainSql.get(BACKFILL.name) as string, [workspaceId, batch.lines]);
    for (const row of batch.rows) {
      if (row.state !== "queued" && row.state !== "live") continue;
      await queueBackfillJob(tx, workspaceId, row.id as string);
    }
  }

  async function write(batch: Batch): Promise<void> {
    if (batch.kind === RECORD.name) return writeRecords(batch);
    if (batch.kind === BACKFILL.name) return writeBackfills(batch);
    const text =
      batch.kind === EMBEDDING ? embeddingSql : batch.kind === RUN.name ? runSql : plainSql.get(batch.kind);
    await tx.query(text as string, [workspaceId, batch.lines]);
  }

  return {
    async write(batch: Batch): Promise<void> {
      await write(batch).catch((error) => {
        throw fileError(
          error,
          `lines ${batch.first}-${batch.first + batch.lines.length - 1} (${batch.kind})`,
        );
      });
    },
    enrichJobs: () => enrichJobs,
  };
}

export type RowWriter = ReturnType<typeof rowWriter>;
