// Stored embeddings and their leads (migration 0027). Of the rows holding one vector in a
// workspace's space, the first stored is the lead, the only one the space's HNSW index holds; the
// others are its copies, which a walk reaches through it (src/search/candidates.ts). A graph of
// identical points links them mostly to one another, so a walk entering such a cluster found
// little beyond it (docs/scaling.md, "Vector search among tenants"). Erasing a lead's record
// promotes the earliest copy left. The exact layout (real[]) scans every row: no leads.
import type { Db, Queryable } from "../platform/db/index.js";
import { vectorLiteral } from "./embedding-index.js";
import * as sql from "./sql.js";

export interface NewEmbedding {
  /** The record's id. */
  id: string;
  space: string;
  vector: number[];
}

/**
 * Stores a batch's embeddings (a (record, space) stored already is left as it is, as is a
 * second one of the batch). With pgvector, leads first, then the copies of leads.
 */
export async function storeEmbeddings(
  tx: Queryable,
  write: {
    db: Pick<Db, "hasVector">;
    workspaceId: string;
    embeddings: NewEmbedding[];
    deferVectors: boolean;
  },
): Promise<void> {
  const seen = new Set<string>();
  const rows = write.embeddings.filter((e) => {
    const key = `${e.id}\u0000${e.space}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  if (rows.length === 0) return;
  if (!write.db.hasVector) {
    // The column's real[] text form.
    const literals = rows.map((e) => `{${e.vector.join(",")}}`);
    await tx.query(sql.INSERT_EMBEDDINGS_REAL, [
      write.workspaceId,
      rows.map((e) => e.id),
      rows.map((e) => e.space),
      literals,
    ]);
    return;
  }
  const params = (batch: NewEmbedding[]) => [
    write.workspaceId,
    batch.map((e) => e.id),
    batch.map((e) => e.space),
    batch.map((e) => vectorLiteral(e.vector)),
    write.deferVectors,
  ];
  const { rows: leads } = await tx.query<{ record_id: string; space: string }>(
    sql.INSERT_EMBEDDING_LEADS,
    params(rows),
  );
  if (leads.length === rows.length) return;
  const stored = new Set(leads.map((lead) => `${lead.record_id}\u0000${lead.space}`));
  await tx.query(
    sql.INSERT_EMBEDDING_COPIES,
    params(rows.filter((e) => !stored.has(`${e.id}\u0000${e.space}`))),
  );
}

/** The vectors whose leads belong to these records: (space, vhash) pairs. */
export interface LeadGroups {
  spaces: string[];
  vhashes: string[];
}

/** Before an erasure deletes these records: the groups whose lead goes with them. */
export async function erasedLeads(tx: Queryable, workspaceId: string, ids: string[]): Promise<LeadGroups> {
  const { rows } = await tx.query<{ space: string; vhash: string }>(sql.ERASED_LEADS, [workspaceId, ids]);
  return { spaces: rows.map((row) => row.space), vhashes: rows.map((row) => row.vhash) };
}

/** After the delete: each group that lost its lead gets its earliest copy left as lead. */
export async function promoteCopies(tx: Queryable, workspaceId: string, groups: LeadGroups): Promise<void> {
  if (groups.spaces.length === 0) return;
  await tx.query(sql.PROMOTE_COPIES, [workspaceId, groups.spaces, groups.vhashes]);
}
