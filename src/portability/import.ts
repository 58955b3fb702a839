// engram import: an engram.export/v1 stream into a new or empty workspace, in one transaction
// committed only once the end line has checked out, so a refused or broken import writes nothing
// (not even the new workspace). Lines are read one by one and written in batches, so a workspace
// larger than memory imports. Each line is checked as client input, as POST /records checks a
// write (format.ts, validate.ts). Ids, seqs, timestamps and provenance are kept; the workspace's
// own id is the importer's.
import {
  activeCatalog,
  type CatalogDeps,
  checkProviders,
  embeddingSpaces,
  type InstalledCatalog,
  loadCatalog,
  restoreInstalls,
} from "../catalog/index.js";
import type { Db, Queryable } from "../platform/db/index.js";
import { AppError } from "../platform/errors.js";
import { buildTextStats, continueCounters, lockSeq } from "../records/index.js";
import { type CreatedWorkspace, findWorkspaceByName, insertWorkspace } from "../workspaces/index.js";
import {
  type Counts,
  checkEnd,
  checkKind,
  END,
  fileError,
  type Header,
  parseHeader,
  parseLine,
  refuse,
  refuseAfterEnd,
  refuseTruncated,
} from "./format.js";
import { TABLE_KINDS } from "./kinds.js";
import { type Batch, type RowWriter, rowWriter } from "./rows.js";
import * as sql from "./sql.js";
import { type RowCheck, rowChecker } from "./validate.js";

/** Lines per INSERT, and the bytes a batch may hold before it is written anyway. */
const BATCH_ROWS = 1000;
const BATCH_BYTES = 8 << 20;

export interface ImportRequest {
  /** The workspace to import into: created when absent, else it must hold nothing. */
  workspace: string;
  /**
   * The file's lines, in order, without their line ends. Iterated at once: a readline interface
   * drops the lines it reads before they are asked for.
   */
  lines: AsyncIterable<string>;
}

export interface ImportResult {
  workspace: string;
  id: string;
  /** The key of a workspace the import created, shown once; absent when it existed. */
  api_key?: string;
  counts: Counts;
  /** Enrichment jobs queued for records imported unready. */
  enrichment_jobs: number;
}

/** The tables an import writes must hold nothing of the workspace. */
async function refuseUnlessEmpty(tx: Queryable, workspace: { id: string; name: string }): Promise<void> {
  const tables = ["catalog_installs", ...TABLE_KINDS.map((kind) => kind.table)];
  const { rows } = await tx.query<Record<string, boolean>>(sql.holdingsSql(tables), [workspace.id]);
  const held = tables.filter((table) => rows[0]?.[table]);
  if (held.length > 0) {
    throw new AppError(
      "workspace_not_empty",
      `workspace "${workspace.name}" already holds data (${held.join(", ")}): import only into a new or empty workspace; nothing was imported`,
    );
  }
}

/**
 * An inactive install is held to the provider rules too: it is a tenant's catalog, stored as it
 * came, and one a later publish could bring back (a refusal names it; nothing is imported).
 */
function checkInactiveProviders(header: Header, providers: CatalogDeps["providers"]): void {
  for (const install of header.catalog_installs) {
    if (install.active) continue;
    try {
      checkProviders(loadCatalog(install.files, install.package), providers);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      refuse(1, `catalog install ${install.id} (${install.package}, inactive): ${error.message}`);
    }
  }
}

/** The header's catalog installs, as they were; the active one is loaded and its indexes made. */
async function installCatalogs(
  tx: Queryable,
  deps: Pick<CatalogDeps, "spaces" | "fields" | "providers">,
  target: { workspaceId: string; header: Header },
): Promise<InstalledCatalog | undefined> {
  const { workspaceId, header } = target;
  if (header.catalog_installs.length === 0) return undefined;
  checkInactiveProviders(header, deps.providers);
  await restoreInstalls(tx, workspaceId, header.catalog_installs).catch((error) => {
    throw fileError(error, "line 1 (catalog_installs)");
  });
  const catalog = await activeCatalog(tx, workspaceId);
  if (!catalog) return undefined;
  // The server's rules for a published catalog hold for an imported one: an import file is
  // a tenant's catalog too (MODEL_ENDPOINTS, MAX_INDEXED_FIELDS).
  checkProviders(catalog, deps.providers);
  deps.fields.check(catalog);
  await deps.spaces.prepare(tx, embeddingSpaces(catalog));
  return catalog;
}

/** Reads the row lines after the header through the end line, checking each, writing them in batches. */
async function loadRows(
  lines: AsyncIterator<string>,
  header: Header,
  rows: { check: RowCheck; writer: RowWriter },
): Promise<{ counts: Counts; rows: number }> {
  const { check, writer } = rows;
  const counts: Counts = {};
  let number = 1;
  let order = 0;
  let batch: Batch | undefined;
  let bytes = 0;
  const flush = async () => {
    if (batch) await writer.write(batch);
    batch = undefined;
    bytes = 0;
  };
  for (let next = await lines.next(); !next.done; next = await lines.next()) {
    number++;
    const row = parseLine(next.value, number);
    if (row.kind === END) {
      await flush();
      const ended = checkEnd(row, number, counts);
      if (!(await lines.next()).done) refuseAfterEnd(number + 1);
      return { counts: ended, rows: Object.values(counts).reduce((sum, n) => sum + n, 0) };
    }
    order = checkKind(row, number, order, header);
    check(row, number);
    const kind = row.kind as string;
    if (batch && (batch.kind !== kind || batch.lines.length >= BATCH_ROWS || bytes >= BATCH_BYTES))
      await flush();
    batch ??= { kind, first: number, lines: [], rows: [] };
    batch.lines.push(next.value);
    batch.rows.push(row);
    bytes += next.value.length;
    counts[kind] = (counts[kind] ?? 0) + 1;
  }
  return refuseTruncated(number);
}

export async function importWorkspace(
  db: Db,
  deps: Pick<CatalogDeps, "spaces" | "fields" | "providers">,
  request: ImportRequest,
): Promise<ImportResult> {
  const lines = request.lines[Symbol.asyncIterator]();
  const first = await lines.next();
  const header = parseHeader(first.done ? undefined : first.value);
  const done = await db.transaction(async (tx) => {
    const existing = await findWorkspaceByName(tx, request.workspace);
    const created: CreatedWorkspace | undefined = existing
      ? undefined
      : await insertWorkspace(tx, request.workspace);
    const workspace = existing ?? { id: (created as CreatedWorkspace).id, name: request.workspace };
    // Taken first, as by every write: the workspace's writers and publishes wait for the import.
    await lockSeq(tx, workspace.id);
    if (existing) await refuseUnlessEmpty(tx, workspace);
    const catalog = await installCatalogs(tx, deps, { workspaceId: workspace.id, header });
    const writer = rowWriter(db, tx, {
      workspaceId: workspace.id,
      withEmbeddings: header.with_embeddings,
      catalog,
    });
    const loaded = await loadRows(lines, header, { check: rowChecker(catalog), writer });
    const { rows } = await tx.query<{ seq: number }>(sql.MAX_SEQ, [workspace.id]);
    const lastSeq = Math.max(header.workspace.last_seq, Number(rows[0]?.seq ?? 0));
    await continueCounters(tx, workspace.id, lastSeq);
    return { workspace, created, catalog, ...loaded, enrichJobs: writer.enrichJobs() };
  });
  // Built at once rather than by the first search (which would otherwise: continueCounters), and
  // before PGlite's maintenance analyzes what the import wrote.
  if (done.catalog) await buildTextStats(db, done.workspace.id, done.catalog);
  // After the commit, as after a publish (src/search/field-indexes.ts).
  if (done.catalog) await deps.fields.sync(done.catalog);
  db.noteWrites(done.rows);
  return {
    workspace: request.workspace,
    id: done.workspace.id,
    ...(done.created ? { api_key: done.created.api_key } : {}),
    counts: done.counts,
    enrichment_jobs: done.enrichJobs,
  };
}
