export { AUDIT_ENTITY, type ErasureResult, type ErasureTarget, eraseTarget, removalCounts } from "./erase.js";
export { INDEX_DELETE_JOB, indexDeleteHandler } from "./index-delete.js";
export { type EraseRequest, eraseRequest } from "./service.js";
