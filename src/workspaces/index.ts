export { isWellFormedKey, keyDigest } from "./keys.js";
export { type WorkspaceOverview, workspaceOverview } from "./overview.js";
export {
  authenticate,
  type CreatedWorkspace,
  countWorkspaces,
  createWorkspace,
  deleteWorkspace,
  findWorkspaceByName,
  listWorkspaces,
  type Workspace,
  type WorkspaceSummary,
} from "./service.js";
