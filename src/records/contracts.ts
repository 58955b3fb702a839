// The records module's side of catalog compatibility: which contracts stored records carry,
// their content for verification, and moving them forward after an additive change.
import type { ContractUsage, StoredContracts } from "../catalog/index.js";
import * as sql from "./sql.js";
import { SYSTEM_COLLECTION } from "./validate.js";

export const storedContracts: StoredContracts = {
  async lockWrites(tx, workspaceId) {
    await tx.query(sql.LOCK_SEQ, [workspaceId]);
  },
  async usage(tx, workspaceId) {
    const { rows } = await tx.query<ContractUsage>(sql.CONTRACT_USAGE, [workspaceId, SYSTEM_COLLECTION]);
    return rows;
  },
  async contents(tx, workspaceId, group, limit) {
    const { rows } = await tx.query<{ content: Record<string, unknown> }>(sql.CONTRACT_CONTENTS, [
      workspaceId,
      group.collection,
      group.version,
      group.hash,
      limit,
    ]);
    return rows.map((row) => row.content);
  },
  async missingVectors(tx, workspaceId, collections, space) {
    const { rows } = await tx.query<{ n: number }>(sql.MISSING_VECTORS, [workspaceId, collections, space]);
    return rows[0]?.n ?? 0;
  },
  async moveForward(tx, workspaceId, group, toHash) {
    const { rowCount } = await tx.query(sql.MOVE_CONTRACT, [
      workspaceId,
      group.collection,
      group.version,
      group.hash,
      toHash,
    ]);
    return rowCount;
  },
};
