export { markAccessed } from "./access.js";
export { type ActivityDay, dailyActivity } from "./activity.js";
export {
  BACKFILL_JOB,
  type BackfillRequest,
  backfillHandler,
  cancelBackfill,
  getBackfill,
  listBackfills,
  queueBackfillJob,
  startBackfill,
} from "./backfill.js";
export { storedContracts } from "./contracts.js";
export {
  alignEmbeddingLayout,
  canDeferVectors,
  fewVectors,
  type LayoutChange,
  spaceIndexes,
  spaceReads,
  vectorLiteral,
} from "./embedding-index.js";
export { enrichHandler } from "./enrich.js";
export { type EntityPage, type EntityQuery, listEntities } from "./entities.js";
export { forgetCursors, type RemovedRecord, removeRecords, restoreHeads } from "./erasure.js";
export { ENRICH_JOB, type Inserted, insertRecords, lastSeq, lockSeq, type NewRecord } from "./insert.js";
export { type ListQuery, listRecords } from "./list.js";
export { type OwnRow, ownRecord } from "./own.js";
export {
  citedBy,
  currentDocument,
  currentHeads,
  getRecord,
  type HeadRow,
  liveSlot,
  type RowFields,
  rowRecords,
  type StatusFilter,
  slotHistory,
  timeline,
  zonedInstant,
} from "./read.js";
export { onRecordsReady, type ReadyHook, type ReadyRecord } from "./ready-hooks.js";
export {
  appendSystemRecord,
  REINDEX_JOB,
  type ReindexRequest,
  reindexHandler,
  startReindex,
} from "./reindex.js";
export { type DeltaScope, delta, moveCursor, scopeHash } from "./replay.js";
export { ROW_LIMITS, ROW_SCHEMA } from "./row-schema.js";
export { buildTextStats } from "./text-stats.js";
export { TOTALS_LEXEME } from "./text-stats-sql.js";
export { SYSTEM_COLLECTION } from "./validate.js";
export { sealDeferredVectors } from "./vector-seal.js";
export { embeddingLeadValues } from "./vector-sql.js";
export { continueCounters, createCounters, deleteWorkspaceMarks } from "./workspace-rows.js";
export { type WriteResult, writeRecords, writeRows } from "./write.js";
