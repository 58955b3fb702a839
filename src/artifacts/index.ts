export { forgetErased } from "./erasure.js";
export { FEEDBACK_KINDS, FEEDBACK_SOURCES, type Feedback, submitFeedback } from "./feedback.js";
export { type ArtifactDeps, renderArtifact, renderFor } from "./render.js";
export { currentSnapshot, snapshotArtifact } from "./snapshots.js";
export { createUse, getUse, purgeExpiredUses, type UseDeps } from "./uses.js";
