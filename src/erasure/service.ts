// POST /erase and `engram erase`: exactly one of an entity or explicit record ids. POST
// /erase?dry_run=true answers what the same request would remove, and removes nothing.
import type { Db } from "../platform/db/index.js";
import { AppError } from "../platform/errors.js";
import { sha256Hex } from "../platform/hash.js";
import type { ErasurePreview, ErasureResult, ErasureTarget } from "./erase.js";
import { eraseTarget, idsDigest, previewTarget, removalCounts } from "./erase.js";
import * as sql from "./sql.js";

export interface EraseRequest {
  entity?: string;
  records?: string[];
}

/** The erasure a request asks for: its seeds, read under the lock, and its audit. */
function requestTarget(workspaceId: string, request: EraseRequest, maxRecords: number): ErasureTarget {
  const { entity, records } = request;
  if ((entity === undefined) === (records === undefined)) {
    throw new AppError("request_schema", "name exactly one of entity or records", {
      errors: [{ path: "", message: "exactly one of entity or records" }],
    });
  }
  return entity !== undefined
    ? {
        entity,
        seeds: async (tx) =>
          (
            await tx.query<{ id: string }>(sql.ENTITY_SEEDS, [
              workspaceId,
              entity,
              sql.AUDIT_TYPES,
              maxRecords + 1,
            ])
          ).rows.map((row) => row.id),
        audit: (removal) => ({
          type: "erasure",
          content: { mode: "entity", entity_sha256: sha256Hex(entity), ...removalCounts(removal) },
        }),
      }
    : {
        seeds: async (tx) =>
          (await tx.query<{ id: string }>(sql.ID_SEEDS, [workspaceId, records])).rows.map((row) => row.id),
        audit: (removal) => ({
          type: "erasure",
          content: {
            mode: "records",
            requested: new Set(records?.map((id) => id.toLowerCase())).size,
            record_ids_sha256: idsDigest(records ?? []),
            ...removalCounts(removal),
          },
        }),
      };
}

export async function eraseRequest(
  db: Db,
  workspaceId: string,
  request: EraseRequest,
  options: { maxRecords: number },
): Promise<ErasureResult> {
  const target = requestTarget(workspaceId, request, options.maxRecords);
  const result = await eraseTarget(db, workspaceId, target, options.maxRecords);
  // An erasure request always writes its audit.
  if (!result) throw new Error("an erasure request wrote no audit");
  return result;
}

/** What eraseRequest would remove now, with the same refusals; nothing is written. */
export async function eraseDryRun(
  db: Db,
  workspaceId: string,
  request: EraseRequest,
  options: { maxRecords: number; listMax?: number },
): Promise<ErasurePreview> {
  const target = requestTarget(workspaceId, request, options.maxRecords);
  return previewTarget(db, workspaceId, target, options);
}
