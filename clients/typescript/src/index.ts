export { PartialWriteError, type WriteLimits, type WriteResult } from "./batches.js";
export type { ConversationMessage, RecallOptions, RememberOptions } from "./conversation.js";
export type { ConsumeOptions, ConsumeResult } from "./delta.js";
export { type CallOptions, Engram, type EngramOptions } from "./engram.js";
export { EngramError, type Problem } from "./errors.js";
export type { components, paths } from "./generated/openapi.js";
export { Pages } from "./paging.js";
export type { RetryOptions } from "./retry.js";
export type * from "./types.js";
