export {
  forgetDerivationJobs,
  forgetDerivationState,
  holdOffDerivations,
  scrubRuns,
  stopRunningDerivations,
} from "./erasure.js";
export { type FreshnessEntry, readFreshness } from "./freshness.js";
export { DERIVE_JOB, deriveJobKey, enqueueDerivation, type TriggerReason } from "./queue.js";
export { type DeriveOptions, deriveHandler } from "./run.js";
export { getRun, PAUSE_AFTER_FAILURES, type RunsQuery } from "./runs.js";
export { promote, readDocument, rebind, requestRun, runsPage } from "./service.js";
export { CRON_ENTITIES_MAX, claimCronTick, fireReadyTriggers, runCronTriggers } from "./triggers.js";
