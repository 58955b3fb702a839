// The worker module's entry point: the durable job queue (queue.ts), the jobs list (job-list.ts),
// what job producers change in their jobs' payloads (payloads.ts), and the worker loop (runner.ts).
export { type JobQuery, listJobs } from "./job-list.js";
export {
  cancelQueuedJobs,
  cancelRunningJobs,
  type EntityJobs,
  forgetJobEntities,
  forgetJobRecords,
  keepRecordCount,
  liveJob,
  mergeReasons,
  openJobOfKind,
  queuedWithReason,
} from "./payloads.js";
export {
  claimJobs,
  deleteWorkspaceJobs,
  describeJob,
  type EnqueueRequest,
  type EnqueueResult,
  endJob,
  enqueue,
  failJob,
  fence,
  getJob,
  JOB_STATES,
  type Job,
  type JobState,
  LeaseLostError,
  releaseLeases,
  retryJob,
  succeed,
} from "./queue.js";
export {
  type AttemptOutcome,
  type JobAttempt,
  type JobContext,
  type JobHandler,
  mustWait,
  type PeriodicTask,
  Worker,
} from "./runner.js";
