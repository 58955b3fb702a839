export { isWellFormedKey, keyDigest, redactKeys } from "./keys.js";
export { type WorkspaceOverview, workspaceOverview } from "./overview.js";
export {
  authenticate,
  type CreatedWorkspace,
  countWorkspaces,
  createWorkspace,
  deleteWorkspace,
  findWorkspaceByName,
  insertWorkspace,
  type KeyHolder,
  listWorkspaces,
  type RequestKey,
  requireWorkspaceByName,
  type WorkspaceSummary,
  workspacesPage,
} from "./service.js";
export {
  type CreatedKey,
  GRANTABLE_SCOPES,
  insertKey,
  KEY_SCOPES,
  type KeyInfo,
  type KeyScope,
  listKeys,
  parseDuration,
  revokeKey,
} from "./workspace-keys.js";
