export { markAccessed } from "./access.js";
export { alignEmbeddingLayout, spacePredicateSql, spaceVectorSql } from "./embedding-index.js";
export { currentDocument, getRecord, type StatusFilter, slotHistory, timeline } from "./read.js";
export { type DeltaScope, delta, moveCursor, scopeHash } from "./replay.js";
export { SYSTEM_COLLECTION } from "./validate.js";
export { ENRICH_JOB, type WriteResult, writeRecords } from "./write.js";
