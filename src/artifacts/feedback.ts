// POST /artifact-uses/{id}/feedback: one ordinary record in `learning_signals` (entity
// `artifact:<name>`, type the feedback kind) citing the heads the use's learning block read, so
// derivations can read feedback as evidence. It never edits an artifact. A dedupe_key makes a
// retry idempotent within the use (same payload: duplicate true; another payload: 409).

import { requireCatalog } from "../catalog/index.js";
import type { Db } from "../platform/db/index.js";
import { AppError } from "../platform/errors.js";
import { getRecord, ownRecord, writeRows } from "../records/index.js";
import { findUse } from "./uses.js";

export const FEEDBACK_KINDS = [
  "thumbs_up",
  "thumbs_down",
  "correction",
  "task_success",
  "task_failure",
  "exception",
  "evaluation",
] as const;
export const FEEDBACK_SOURCES = ["end_user", "operator", "evaluator", "application"] as const;
export const LEARNING_COLLECTION = "learning_signals";

export interface Feedback {
  kind: (typeof FEEDBACK_KINDS)[number];
  source: (typeof FEEDBACK_SOURCES)[number];
  score?: number;
  label?: string;
  comment?: string;
  expected?: string;
  actual_excerpt?: string;
  dedupe_key?: string;
  execution_refs?: string[];
}

export async function submitFeedback(db: Db, workspaceId: string, useId: string, feedback: Feedback) {
  const use = await findUse(db, workspaceId, useId);
  if (use.expired) {
    throw new AppError(
      "artifact_use_expired",
      `artifact use ${use.id} expired at ${use.expires_at.toISOString()}`,
    );
  }
  const seen = await requireCatalog(db, workspaceId);
  const { dedupe_key: dedupeKey, ...signal } = feedback;
  const entity = `artifact:${use.artifact}`;
  const parents = use.learning_target?.heads.map((head) => head.record_id) ?? [];
  const written = await writeRows(db, workspaceId, seen, (catalog) => [
    ownRecord(
      catalog,
      {
        collection: LEARNING_COLLECTION,
        entity,
        type: feedback.kind,
        text: feedback.comment ?? feedback.label ?? feedback.kind,
        content: { ...signal, artifact_use: use.id, render_sha256: use.render_sha256 },
        key: null,
        parents,
        // Scoped to the use: the same client key on another use is another submission.
        dedupeKey: dedupeKey === undefined ? null : `artifact-use:${use.id}:${dedupeKey}`,
        contentPath: "",
      },
      () =>
        new AppError(
          "learning_signals_unavailable",
          `the catalog defines no active ${LEARNING_COLLECTION} collection for feedback`,
        ),
    ),
  ]);
  const duplicate = written.duplicates.length > 0;
  const recordId = (duplicate ? written.duplicates[0]?.id : written.inserted[0]?.id) as string;
  const ready = duplicate
    ? Boolean((await getRecord(db, workspaceId, recordId)).ready)
    : Boolean(written.inserted[0]?.ready);
  return {
    record_id: recordId,
    ready,
    duplicate,
    collection: LEARNING_COLLECTION,
    entity,
    type: feedback.kind,
    artifact_use: use.id,
  };
}
