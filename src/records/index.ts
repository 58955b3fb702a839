export { markAccessed } from "./access.js";
export { alignEmbeddingLayout, spacePredicateSql, spaceVectorSql } from "./embedding-index.js";
export { ENRICH_JOB, type Inserted, insertRecords, lockSeq, type NewRecord } from "./insert.js";
export { currentDocument, getRecord, type StatusFilter, slotHistory, timeline } from "./read.js";
export { onRecordsReady, type ReadyHook, type ReadyRecord } from "./ready-hooks.js";
export { appendSystemRecord } from "./reindex.js";
export { type DeltaScope, delta, moveCursor, scopeHash } from "./replay.js";
export { SYSTEM_COLLECTION } from "./validate.js";
export { type WriteResult, writeRecords } from "./write.js";
