import type { Db, Queryable } from "../../platform/db/index.js";
import { AppError } from "../../platform/errors.js";
import type { Workspace } from "../../platform/workspace.js";
import type { CatalogIndex, PackageManifest, ProviderDef } from "../definition/index.js";
import { placesWarning } from "../search-spec/index.js";
import {
  assessCompatibility,
  type CompatibilityReport,
  checkSpaceCutover,
  type StoredContracts,
} from "./compatibility.js";
import { definitionOf, definitionsDiff } from "./definitions.js";
import { type InstalledCatalog, type LoadedCatalog, loadCatalog } from "./load.js";
import { pruneReport } from "./prune.js";
import { takeInstall } from "./request-install.js";
import * as sql from "./sql.js";

export interface PublishRequest {
  package: string;
  files: Record<string, string>;
}

export interface PublishResult {
  workspace: string;
  package: string;
  catalog_hash: string;
  files: Record<string, string>;
  loaded: true;
  rewritten_records: number;
  /** What the catalog allows but a user may not expect (catalogWarnings). */
  warnings: string[];
}

/** Warnings a publish and its dry run give: the catalog installs, but something will refuse. */
function catalogWarnings(index: CatalogIndex): string[] {
  const places = placesWarning(index);
  return places ? [places] : [];
}

/** An embedding space a catalog's embedding alias writes vectors into. */
export interface EmbeddingSpace {
  space: string;
  dimensions: number;
}

/** The records' side of embedding spaces: makes a catalog's spaces searchable by index. */
export interface SpaceIndexes {
  prepare(tx: Queryable, spaces: EmbeddingSpace[]): Promise<void>;
}

/** The search side of declared fields: indexes for the sorts and filters a catalog declares. */
export interface FieldIndexes {
  /** Refuses a catalog declaring more indexed fields than MAX_INDEXED_FIELDS allows. */
  check(catalog: LoadedCatalog): void;
  /**
   * After an install committed, never in its transaction (that would stop every workspace's
   * writes): builds the indexes active catalogs need and drops the rest (src/search/field-indexes.ts).
   * `installed` is the catalog just installed, already loaded.
   */
  sync(installed?: LoadedCatalog): Promise<void>;
}

/** The deployment's model endpoint policy: why a provider may not be used, or null. */
export type ProviderPolicy = (provider: ProviderDef) => { field: string; reason: string } | null;

/** What catalog operations need beyond the database: the stored records' side. */
export interface CatalogDeps {
  db: Db;
  stored: StoredContracts;
  spaces: SpaceIndexes;
  fields: FieldIndexes;
  /** ADDITIVE_VERIFY_MAX_ROWS */
  verifyMaxRows: number;
  /** MODEL_ENDPOINTS, checked at publish and dry run (docs/operations.md, "Model endpoints"). */
  providers: ProviderPolicy;
}

interface InstallRow {
  id: string;
  package: string;
  catalog_hash: string;
  files: Record<string, string>;
  hashes: Record<string, string>;
  installed_at: Date;
}

/** Loaded catalogs by workspace, valid while the active install id is unchanged. */
const cache = new Map<string, InstalledCatalog>();

/** Text search configurations must exist in the database that will build the tsvectors. */
async function checkTextConfigs(db: Queryable, loaded: LoadedCatalog): Promise<void> {
  const profiles = [...loaded.index.searchProfiles.values()];
  const names = [...new Set(profiles.map((p) => p.def.text_config))];
  const { rows } = await db.query<{ cfgname: string }>(sql.KNOWN_TEXT_CONFIGS, [names]);
  const known = new Set(rows.map((row) => row.cfgname));
  for (const profile of profiles) {
    if (!known.has(profile.def.text_config)) {
      profile.src
        .at("text_config")
        .fail(`the database has no text search configuration "${profile.def.text_config}"`);
    }
  }
}

/** Every provider but a fake one must be one the operator allows, with the key paired to it. */
export function checkProviders(loaded: LoadedCatalog, policy: ProviderPolicy): void {
  const { def, src } = loaded.index.models;
  for (const [name, provider] of Object.entries(def.providers)) {
    const refusal = policy(provider);
    if (refusal) src.at("providers").at(name).at(refusal.field).fail(refusal.reason);
  }
}

async function validateUpload(deps: CatalogDeps, request: PublishRequest): Promise<LoadedCatalog> {
  const loaded = loadCatalog(request.files, request.package);
  checkProviders(loaded, deps.providers);
  deps.fields.check(loaded);
  await checkTextConfigs(deps.db, loaded);
  return loaded;
}

/** POST /catalog?dry_run=true: the compatibility report only; nothing is installed. */
export async function dryRunPublish(
  deps: CatalogDeps,
  workspace: Workspace,
  request: PublishRequest,
  options: { diff?: boolean } = {},
) {
  const loaded = await validateUpload(deps, request);
  return deps.db.transaction(async (tx) => {
    const current = await activeCatalog(tx, workspace.id);
    const { report } = await assessCompatibility(
      tx,
      workspace.id,
      deps.stored,
      loaded,
      current,
      deps.verifyMaxRows,
    );
    const reply = { ...report, warnings: catalogWarnings(loaded.index) };
    return options.diff ? { ...reply, diff: definitionsDiff(current, loaded) } : reply;
  });
}

/** The embedding spaces a catalog writes vectors into (each needs its index before any vector lands). */
export function embeddingSpaces(catalog: LoadedCatalog): EmbeddingSpace[] {
  return Object.values(catalog.index.models.def.aliases).flatMap((alias) =>
    alias.kind === "embedding" ? [{ space: alias.space, dimensions: alias.dimensions }] : [],
  );
}

/**
 * Validates the whole upload and installs it atomically under the workspace lock, with record
 * writes held off so that no record lands under a contract being replaced. An invalid or
 * incompatible upload leaves the previous catalog active. Publishing the active catalog again
 * changes nothing (same hashes); publishing an earlier package again is a rollback.
 */
export async function publishCatalog(
  deps: CatalogDeps,
  workspace: Workspace,
  request: PublishRequest,
): Promise<PublishResult> {
  const loaded = await validateUpload(deps, request);
  const rewritten = await deps.db.withWorkspaceLock(workspace.id, async (tx) => {
    await deps.stored.lockWrites(tx, workspace.id);
    const current = await activeCatalog(tx, workspace.id);
    const { report, moves } = await assessCompatibility(
      tx,
      workspace.id,
      deps.stored,
      loaded,
      current,
      deps.verifyMaxRows,
    );
    if (!report.publishable) {
      throw new AppError(
        "catalog_incompatible",
        "the new catalog would reinterpret stored records; nothing was installed",
        {
          compatibility: report,
        },
      );
    }
    await checkSpaceCutover(tx, workspace.id, deps.stored, loaded, current);
    await deps.spaces.prepare(tx, embeddingSpaces(loaded));
    let moved = 0;
    for (const move of moves)
      moved += await deps.stored.moveForward(tx, workspace.id, move.group, move.toHash);
    if (current?.catalogHash !== loaded.catalogHash) {
      await tx.query(sql.DEACTIVATE, [workspace.id]);
      await tx.query(sql.INSERT_INSTALL, [
        workspace.id,
        loaded.package,
        loaded.catalogHash,
        JSON.stringify(request.files),
        JSON.stringify(loaded.hashes),
      ]);
    }
    return moved;
  });
  await deps.fields.sync(loaded);
  return {
    workspace: workspace.name,
    package: loaded.package,
    catalog_hash: loaded.catalogHash,
    files: loaded.files,
    loaded: true,
    rewritten_records: rewritten,
    warnings: catalogWarnings(loaded.index),
  };
}

/** The installed catalog of a workspace, or undefined when nothing was published. */
export async function activeCatalog(
  db: Queryable,
  workspaceId: string,
): Promise<InstalledCatalog | undefined> {
  const installId = await activeInstallId(db, workspaceId);
  if (!installId) return undefined;
  const cached = cache.get(workspaceId);
  if (cached?.installId === installId) return cached;
  const install = (await db.query<InstallRow>(sql.ACTIVE_INSTALL, [workspaceId])).rows[0];
  if (!install) return undefined;
  const catalog = { ...loadCatalog(install.files, install.package), installId: install.id };
  cache.set(workspaceId, catalog);
  return catalog;
}

/** The active install's id: the one the request's key lookup read, else read now. */
async function activeInstallId(db: Queryable, workspaceId: string): Promise<string | null | undefined> {
  const read = takeInstall(db, workspaceId);
  if (read !== undefined) return read;
  return (await db.query<{ id: string }>(sql.ACTIVE_INSTALL_ID, [workspaceId])).rows[0]?.id;
}

export async function requireCatalog(db: Queryable, workspaceId: string): Promise<InstalledCatalog> {
  const catalog = await activeCatalog(db, workspaceId);
  if (!catalog)
    throw new AppError("no_catalog", "no catalog is published in this workspace; POST /catalog first");
  return catalog;
}

/**
 * The catalog to use inside a write transaction that holds off publishes: the one already
 * loaded when it is still installed (the common case), else the newly installed one.
 */
export async function confirmCatalog(
  tx: Queryable,
  workspaceId: string,
  seen: InstalledCatalog,
): Promise<InstalledCatalog> {
  const { rows } = await tx.query<{ id: string }>(sql.ACTIVE_INSTALL_ID, [workspaceId]);
  return rows[0]?.id === seen.installId ? seen : requireCatalog(tx, workspaceId);
}

export interface CatalogSummary {
  package: string;
  catalog_hash: string;
  metadata: {
    installed_at: string;
    definitions: Record<string, string>;
    counts: Record<string, number>;
  };
}

export async function describeCatalog(db: Queryable, workspaceId: string): Promise<CatalogSummary> {
  const install = (await db.query<InstallRow>(sql.ACTIVE_INSTALL, [workspaceId])).rows[0];
  if (!install)
    throw new AppError("no_catalog", "no catalog is published in this workspace; POST /catalog first");
  const counts: Record<string, number> = {};
  for (const id of Object.keys(install.hashes)) {
    const family = id.split(":")[0] as string;
    counts[family] = (counts[family] ?? 0) + 1;
  }
  return {
    package: install.package,
    catalog_hash: install.catalog_hash,
    metadata: { installed_at: install.installed_at.toISOString(), definitions: install.hashes, counts },
  };
}

export interface CatalogDefinitions {
  package: string;
  catalog_hash: string;
  /** The selected package manifest, normalized. */
  manifest: PackageManifest;
  /** Every listed definition, normalized, by the ids GET /catalog's metadata.definitions hashes. */
  definitions: Record<string, unknown>;
}

/**
 * GET /catalog/definitions: the active install's definitions as it normalized them (the values
 * its hashes are computed over), so the console can show them without the uploaded YAML.
 */
export async function catalogDefinitions(db: Queryable, workspaceId: string): Promise<CatalogDefinitions> {
  const catalog = await requireCatalog(db, workspaceId);
  const ids = Object.keys(catalog.hashes).sort();
  return {
    package: catalog.package,
    catalog_hash: catalog.catalogHash,
    manifest: catalog.index.manifest.def,
    definitions: Object.fromEntries(ids.map((id) => [id, definitionOf(catalog, id)])),
  };
}

/** GET /catalog/compatibility: the stored records against the installed catalog. */
export async function installedCompatibility(
  deps: CatalogDeps,
  workspaceId: string,
): Promise<CompatibilityReport> {
  return deps.db.transaction(async (tx) => {
    const catalog = await requireCatalog(tx, workspaceId);
    return (await assessCompatibility(tx, workspaceId, deps.stored, catalog, catalog, deps.verifyMaxRows))
      .report;
  });
}

/** GET /catalog/prune: a read-only report of deletable definitions. */
export async function catalogPruneReport(deps: CatalogDeps, workspaceId: string) {
  return deps.db.transaction(async (tx) =>
    pruneReport(tx, workspaceId, deps.stored, await requireCatalog(tx, workspaceId)),
  );
}
