export { activeArtifact, listedArtifact, type ResolvedArtifact } from "./artifact-lookup.js";
export type { CompatibilityReport, StoredContracts } from "./compatibility.js";
export { exampleCatalogRequest, readCatalogDirectory } from "./directory.js";
export {
  artifactSummaries,
  collectionSummaries,
  processorSummaries,
  rankSchema,
  triggerSummaries,
  viewSummaries,
} from "./discovery.js";
export { activeCollection, type CatalogIndex } from "./index-types.js";
export { type LoadedCatalog, loadCatalog } from "./load.js";
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
  type InstalledCatalog,
  installedCompatibility,
  type PublishRequest,
  type PublishResult,
  publishCatalog,
  requireCatalog,
  type SpaceIndexes,
} from "./service.js";
export { activeInstallSql } from "./sql.js";
