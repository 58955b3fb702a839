// POST /erase and `engram erase`: exactly one of an entity or explicit record ids.
import type { Db } from "../platform/db/index.js";
import { AppError } from "../platform/errors.js";
import { sha256Hex } from "../platform/hash.js";
import type { ErasureResult } from "./erase.js";
import { eraseTarget, idsDigest, removalCounts } from "./erase.js";
import * as sql from "./sql.js";

export interface EraseRequest {
  entity?: string;
  records?: string[];
}

export async function eraseRequest(
  db: Db,
  workspaceId: string,
  request: EraseRequest,
  options: { maxRecords: number },
): Promise<ErasureResult> {
  const { entity, records } = request;
  if ((entity === undefined) === (records === undefined)) {
    throw new AppError("request_schema", "name exactly one of entity or records", {
      errors: [{ path: "", message: "exactly one of entity or records" }],
    });
  }
  const result = await eraseTarget(
    db,
    workspaceId,
    entity !== undefined
      ? {
          entity,
          seeds: async (tx) =>
            (
              await tx.query<{ id: string }>(sql.ENTITY_SEEDS, [
                workspaceId,
                entity,
                sql.AUDIT_TYPES,
                options.maxRecords + 1,
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
        },
    options.maxRecords,
  );
  // An erasure request always writes its audit.
  if (!result) throw new Error("an erasure request wrote no audit");
  return result;
}
