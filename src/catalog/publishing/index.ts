// Publishing a catalog: loading an upload, its compatibility with stored records, installing it
// in a workspace, the installed catalog of a request, discovery documents and prune reports.
export { activeArtifact, listedArtifact, type ResolvedArtifact } from "./artifact-lookup.js";
export type { CompatibilityReport, ContractUsage, StoredContracts } from "./compatibility.js";
export { exampleCatalogRequest, readCatalogDirectory } from "./directory.js";
export {
  artifactSummaries,
  collectionSummaries,
  processorSummaries,
  rankSchema,
  SCORE_SEMANTICS,
  triggerSummaries,
  viewSummaries,
} from "./discovery.js";
export { installRows, restoreInstalls } from "./install-rows.js";
export { type InstalledCatalog, type LoadedCatalog, loadCatalog } from "./load.js";
export { PACKAGE_NAME } from "./manifest.js";
export { forgetInstall, rememberInstall, runAsRequest } from "./request-install.js";
export {
  activeCatalog,
  type CatalogDefinitions,
  type CatalogDeps,
  type CatalogSummary,
  catalogDefinitions,
  catalogPruneReport,
  checkProviders,
  confirmCatalog,
  describeCatalog,
  dryRunPublish,
  type EmbeddingSpace,
  embeddingSpaces,
  type FieldIndexes,
  installedCompatibility,
  type PublishRequest,
  type PublishResult,
  publishCatalog,
  requireCatalog,
  type SpaceIndexes,
} from "./service.js";
export { activeInstallSql } from "./sql.js";
