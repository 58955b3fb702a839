import type { Db, Queryable } from "../platform/db/index.js";
import { AppError } from "../platform/errors.js";
import type { Workspace } from "../workspaces/index.js";
import { type LoadedCatalog, loadCatalog } from "./load.js";
import * as sql from "./sql.js";

export interface PublishRequest {
  package: string;
  files: Record<string, string>;
}

/** Spec "Catalog compatibility report". */
export interface CompatibilityReport {
  verdict: "invisible" | "additive" | "reinterpreting";
  publishable: boolean;
  blockers: { records: { collection: string; version: number; count: number }; action: string }[];
}

export interface PublishResult {
  workspace: string;
  package: string;
  catalog_hash: string;
  files: Record<string, string>;
  loaded: true;
  rewritten_records: number;
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
const cache = new Map<string, { installId: string; catalog: LoadedCatalog }>();

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

/**
 * Compatibility of a new catalog with what is stored. Records are the only thing a catalog
 * change can reinterpret; until a workspace holds records every change is invisible to them.
 */
function compatibility(): CompatibilityReport {
  return { verdict: "invisible", publishable: true, blockers: [] };
}

async function validateUpload(db: Db, request: PublishRequest): Promise<LoadedCatalog> {
  const loaded = loadCatalog(request.files, request.package);
  await checkTextConfigs(db, loaded);
  return loaded;
}

export async function dryRunPublish(
  db: Db,
  _workspace: Workspace,
  request: PublishRequest,
): Promise<CompatibilityReport> {
  await validateUpload(db, request);
  return compatibility();
}

/**
 * Validates the whole upload and installs it atomically under the workspace lock. An invalid
 * or incompatible upload leaves the previous catalog active. Publishing the active catalog
 * again changes nothing (same hashes); publishing an earlier package again is a rollback.
 */
export async function publishCatalog(
  db: Db,
  workspace: Workspace,
  request: PublishRequest,
): Promise<PublishResult> {
  const loaded = await validateUpload(db, request);
  await db.withWorkspaceLock(workspace.id, async (tx) => {
    const report = compatibility();
    if (!report.publishable) {
      throw new AppError("catalog_incompatible", "the change would reinterpret stored records", {
        compatibility: report,
      });
    }
    const { rows } = await tx.query<InstallRow>(sql.ACTIVE_INSTALL, [workspace.id]);
    if (rows[0]?.catalog_hash === loaded.catalogHash) return;
    await tx.query(sql.DEACTIVATE, [workspace.id]);
    await tx.query(sql.INSERT_INSTALL, [
      workspace.id,
      loaded.package,
      loaded.catalogHash,
      JSON.stringify(request.files),
      JSON.stringify(loaded.hashes),
    ]);
  });
  return {
    workspace: workspace.name,
    package: loaded.package,
    catalog_hash: loaded.catalogHash,
    files: loaded.files,
    loaded: true,
    rewritten_records: 0,
  };
}

/** The installed catalog of a workspace, or undefined when nothing was published. */
export async function activeCatalog(db: Queryable, workspaceId: string): Promise<LoadedCatalog | undefined> {
  const { rows } = await db.query<{ id: string }>(sql.ACTIVE_INSTALL_ID, [workspaceId]);
  const installId = rows[0]?.id;
  if (!installId) return undefined;
  const cached = cache.get(workspaceId);
  if (cached?.installId === installId) return cached.catalog;
  const install = (await db.query<InstallRow>(sql.ACTIVE_INSTALL, [workspaceId])).rows[0];
  if (!install) return undefined;
  const catalog = loadCatalog(install.files, install.package);
  cache.set(workspaceId, { installId: install.id, catalog });
  return catalog;
}

export async function requireCatalog(db: Queryable, workspaceId: string): Promise<LoadedCatalog> {
  const catalog = await activeCatalog(db, workspaceId);
  if (!catalog)
    throw new AppError("no_catalog", "no catalog is published in this workspace; POST /catalog first");
  return catalog;
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

export async function installedCompatibility(
  db: Queryable,
  workspaceId: string,
): Promise<CompatibilityReport> {
  await requireCatalog(db, workspaceId);
  return compatibility();
}
