export {
  AUDIT_ENTITY,
  type ErasurePreview,
  type ErasureResult,
  type ErasureTarget,
  eraseTarget,
  removalCounts,
} from "./erase.js";
export { INDEX_DELETE_JOB, indexDeleteHandler } from "./index-delete.js";
export { type EraseRequest, eraseDryRun, eraseRequest } from "./service.js";
