export { isWellFormedKey, keyDigest } from "./keys.js";
export {
  authenticate,
  type CreatedWorkspace,
  countWorkspaces,
  createWorkspace,
  findWorkspaceByName,
  listWorkspaces,
  type Workspace,
  type WorkspaceSummary,
} from "./service.js";
