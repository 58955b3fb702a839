export { markAccessed } from "./access.js";
export { BACKFILL_JOB } from "./backfill.js";
export {
  alignEmbeddingLayout,
  canDeferVectors,
  type LayoutChange,
  spaceReads,
  vectorLiteral,
} from "./embedding-index.js";
export { type EntityPage, type EntityQuery, listEntities } from "./entities.js";
export { ENRICH_JOB, type Inserted, insertRecords, lastSeq, lockSeq, type NewRecord } from "./insert.js";
export { type OwnRow, ownRecord } from "./own.js";
export {
  citedBy,
  currentDocument,
  currentHeads,
  getRecord,
  type HeadRow,
  type RowFields,
  rowRecords,
  type StatusFilter,
  slotHistory,
  timeline,
} from "./read.js";
export { onRecordsReady, type ReadyHook, type ReadyRecord } from "./ready-hooks.js";
export { appendSystemRecord } from "./reindex.js";
export { type DeltaScope, delta, moveCursor, scopeHash } from "./replay.js";
export { buildTextStats, countSearchable, TOTALS_LEXEME, uncountSearchable } from "./text-stats.js";
export { isUuid, SYSTEM_COLLECTION } from "./validate.js";
export { type WriteResult, writeRecords, writeRows } from "./write.js";
