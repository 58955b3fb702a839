// Snapshots (docs/api.md, "Snapshots"): a render persisted as one keyed record of the artifact's
// snapshot target (entity `artifact:<name>`, key `<name>@<version>:<sha256 of the canonical
// parameters>`, derived_from the records used), with its manifest beside it. Snapshotting again
// writes a successor; GET /artifacts/{name} reads the current one.
import { randomUUID } from "node:crypto";
import { activeArtifact, queryArguments, type ResolvedArtifact, requireCatalog } from "../catalog/index.js";
import { AppError } from "../platform/errors.js";
import { hashJson } from "../platform/hash.js";
import { ownRecord, writeRows } from "../records/index.js";
import { type ArtifactDeps, type RenderRequest, renderFor, renderRequest } from "./render.js";
import * as sql from "./sql.js";

/** The snapshot target, or 422 artifact_snapshot when the artifact declares none. */
export function snapshotTarget(artifact: ResolvedArtifact) {
  const target = artifact.def.snapshot;
  if (!target) {
    throw new AppError("artifact_snapshot", `artifact ${artifact.def.name} declares no snapshot target`);
  }
  return target;
}

function slotOf(request: RenderRequest) {
  const { def } = request.artifact;
  return {
    entity: `artifact:${def.name}`,
    key: `${def.name}@${def.version}:${hashJson(request.parameters)}`,
  };
}

/** Renders and persists; the record and its snapshot row commit together. */
export async function snapshotFor(deps: ArtifactDeps, workspaceId: string, request: RenderRequest) {
  const target = snapshotTarget(request.artifact);
  const render = await renderFor(deps, workspaceId, request);
  const slot = slotOf(request);
  const snapshotId = randomUUID();
  let createdAt: Date | undefined;
  const written = await writeRows(
    deps.db,
    workspaceId,
    request.catalog,
    (catalog) => [
      ownRecord(
        catalog,
        {
          collection: target.collection,
          entity: slot.entity,
          type: target.type,
          text: render.content,
          content: {},
          key: slot.key,
          parents: render.manifest.record_ids,
          dedupeKey: null,
          contentPath: "",
        },
        () =>
          new AppError("artifact_snapshot", `snapshot collection ${target.collection} has no active version`),
      ),
    ],
    async (tx, result) => {
      const recordId = result.inserted[0]?.id as string;
      const { rows } = await tx.query<{ created_at: Date }>(sql.INSERT_SNAPSHOT, [
        workspaceId,
        snapshotId,
        recordId,
        request.artifact.def.name,
        request.artifact.def.version,
        JSON.stringify(render.manifest),
      ]);
      createdAt = rows[0]?.created_at;
    },
  );
  return {
    render,
    snapshot: {
      snapshot_id: snapshotId,
      record_id: written.inserted[0]?.id as string,
      content: render.content,
      manifest: render.manifest,
      created_at: createdAt as Date,
    },
  };
}

/** POST /artifacts/{name}/snapshot (body: the artifact's parameters). */
export async function snapshotArtifact(deps: ArtifactDeps, workspaceId: string, name: string, args: unknown) {
  const request = await renderRequest(deps, workspaceId, name, args);
  snapshotTarget(request.artifact);
  return (await snapshotFor(deps, workspaceId, request)).snapshot;
}

/**
 * GET /artifacts/{name}: the current snapshot for these parameters (given as query parameters),
 * 404 snapshot_not_found.
 */
export async function currentSnapshot(
  deps: ArtifactDeps,
  workspaceId: string,
  name: string,
  query: Record<string, unknown>,
) {
  const catalog = await requireCatalog(deps.db, workspaceId);
  const args = queryArguments(activeArtifact(catalog, name).def.parameters, query);
  const request = await renderRequest(deps, workspaceId, name, args);
  const target = snapshotTarget(request.artifact);
  const slot = slotOf(request);
  const { rows } = await deps.db.query<{
    id: string;
    record_id: string;
    manifest: unknown;
    created_at: Date;
    text: string;
  }>(sql.CURRENT_SNAPSHOT, [workspaceId, slot.entity, target.collection, slot.key]);
  const row = rows[0];
  if (!row) {
    throw new AppError(
      "snapshot_not_found",
      `no snapshot of ${name} for these parameters; POST a snapshot first`,
    );
  }
  return {
    snapshot_id: row.id,
    record_id: row.record_id,
    content: row.text,
    manifest: row.manifest,
    created_at: row.created_at,
  };
}
