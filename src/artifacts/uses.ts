// Artifact uses (spec "Artifact use and feedback"): the handle an application gets with a render
// and reports back on. A use keeps the render's hash, never the render; it expires after
// ARTIFACT_USE_RETENTION_DAYS and the worker purges it later. Another workspace's use is
// indistinguishable from a missing one.
import { randomUUID } from "node:crypto";
import { listedArtifact } from "../catalog/index.js";
import type { Queryable } from "../platform/db/index.js";
import { AppError } from "../platform/errors.js";
import { sha256Hex } from "../platform/hash.js";
import { isUuid } from "../platform/input.js";
import { type ArtifactDeps, type Render, renderFor, renderRequest } from "./render.js";
import { snapshotFor, snapshotTarget } from "./snapshots.js";
import * as sql from "./sql.js";

export interface UseDeps extends ArtifactDeps {
  artifactUseRetentionDays: number;
}

export interface LearningTarget {
  artifact: { name: string; version: number; definition_hash: string; kind: string };
  entity: string;
  block: string;
  heads: { collection: string; key: string; record_id: string; run_id: string | null }[];
  base_run_id: string | null;
}

interface UseRow {
  id: string;
  artifact: string;
  version: number;
  definition_hash: string;
  render_sha256: string;
  snapshot_id: string | null;
  learning_target: LearningTarget | null;
  render_tokens: number;
  render_truncated: boolean;
  created_at: Date;
  expires_at: Date;
  expired: boolean;
}

/** The active heads the learning block read; null without a learning block or without heads. */
function learningTarget(render: Render): LearningTarget | null {
  const { def } = render.artifact;
  const learning = def.learning;
  const block = learning ? render.blocks[learning.block] : undefined;
  if (!learning || !block?.heads || block.heads.length === 0) return null;
  const target = learning.artifact ? listedArtifact(render.catalog, learning.artifact) : render.artifact;
  // The newest head that a run wrote is the run the feedback is about.
  const newest = [...block.heads].filter((head) => head.run_id !== null).sort((a, b) => b.seq - a.seq)[0];
  return {
    artifact: {
      name: target.def.name,
      version: target.def.version,
      definition_hash: target.hash,
      kind: target.def.kind,
    },
    entity: block.entity as string,
    block: learning.block,
    heads: block.heads.map((head) => ({
      collection: head.collection,
      key: head.key,
      record_id: head.id,
      run_id: head.run_id,
    })),
    base_run_id: newest?.run_id ?? null,
  };
}

/** The use as GET /artifact-uses/{id} shows it: identities, hashes, learning target, expiry. */
function useMetadata(row: UseRow) {
  return {
    id: row.id,
    artifact: { name: row.artifact, version: row.version, definition_hash: row.definition_hash },
    render_sha256: row.render_sha256,
    snapshot_id: row.snapshot_id,
    learning_target: row.learning_target,
    telemetry: {
      "engram.use.id": row.id,
      "engram.artifact.name": row.artifact,
      "engram.artifact.version": row.version,
      "engram.artifact.definition_hash": row.definition_hash,
      "engram.artifact.render_sha256": row.render_sha256,
    },
    render: { tokens: row.render_tokens, truncated: row.render_truncated },
    created_at: row.created_at,
    expires_at: row.expires_at,
    expired: row.expired,
  };
}

/** POST /artifacts/{name}/uses: a render (persisted as a snapshot when asked) and its use handle. */
export async function createUse(
  deps: UseDeps,
  workspaceId: string,
  name: string,
  body: { parameters?: Record<string, unknown>; snapshot?: boolean },
) {
  const request = await renderRequest(deps, workspaceId, name, body.parameters ?? {});
  if (body.snapshot === true) snapshotTarget(request.artifact);
  const { render, snapshotId } =
    body.snapshot === true
      ? await snapshotFor(deps, workspaceId, request).then((made) => ({
          render: made.render,
          snapshotId: made.snapshot.snapshot_id,
        }))
      : { render: await renderFor(deps, workspaceId, request), snapshotId: null };
  const id = randomUUID();
  const { def } = render.artifact;
  const row = {
    id,
    artifact: def.name,
    version: def.version,
    definition_hash: render.artifact.hash,
    render_sha256: sha256Hex(render.content),
    snapshot_id: snapshotId,
    learning_target: learningTarget(render),
    render_tokens: render.manifest.tokens,
    render_truncated: render.manifest.truncated,
  };
  const { rows } = await deps.db.query<{ created_at: Date; expires_at: Date; expired: boolean }>(
    sql.INSERT_USE,
    [
      workspaceId,
      id,
      row.artifact,
      row.version,
      row.definition_hash,
      row.render_sha256,
      row.snapshot_id,
      row.learning_target === null ? null : JSON.stringify(row.learning_target),
      row.render_tokens,
      row.render_truncated,
      deps.artifactUseRetentionDays * 86_400,
    ],
  );
  const stamps = rows[0] as { created_at: Date; expires_at: Date; expired: boolean };
  const { id: _id, ...metadata } = useMetadata({ ...row, ...stamps });
  return { id, content: render.content, ...metadata };
}

/** The stored use, or 404 artifact_use_not_found (a malformed id is 422 request_schema). */
export async function findUse(db: Queryable, workspaceId: string, id: string): Promise<UseRow> {
  if (!isUuid(id)) {
    throw new AppError("request_schema", `use id "${id}" is not a UUID`, {
      errors: [{ path: "id", message: "must be a UUID" }],
    });
  }
  const row = (await db.query<UseRow>(sql.GET_USE, [workspaceId, id.toLowerCase()])).rows[0];
  if (!row) throw new AppError("artifact_use_not_found", `no artifact use ${id}`);
  return row;
}

/** GET /artifact-uses/{id}: metadata only, never the render. */
export async function getUse(db: Queryable, workspaceId: string, id: string) {
  return useMetadata(await findUse(db, workspaceId, id));
}

/** One purge pass: at most `batch` expired uses, across workspaces. */
export async function purgeExpiredUses(db: Queryable, batch: number): Promise<number> {
  return (await db.query(sql.PURGE_USES, [batch])).rowCount;
}
