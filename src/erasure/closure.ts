// The set an erasure removes: its seeds and every record derived from them, transitively, in
// any entity and collection. Read under the workspace's seq lock, so no derived row can appear
// between the expansion and the delete. Bounded: a set over the limit is refused before
// anything is removed.
import type { Queryable } from "../platform/db/index.js";
import { AppError } from "../platform/errors.js";
import * as sql from "./sql.js";

export function tooLarge(maxRecords: number): AppError {
  return new AppError(
    "erase_too_large",
    `the erasure and the records derived from it exceed ERASE_MAX_RECORDS (${maxRecords}); nothing was removed`,
    { max_records: maxRecords },
  );
}

/** Seeds plus their derived_from descendants; throws erase_too_large past maxRecords. */
export async function expandClosure(
  tx: Queryable,
  workspaceId: string,
  seeds: string[],
  maxRecords: number,
): Promise<string[]> {
  const closure = new Set(seeds);
  if (closure.size > maxRecords) throw tooLarge(maxRecords);
  let frontier = [...closure];
  while (frontier.length > 0) {
    const { rows } = await tx.query<{ id: string }>(sql.CHILDREN, [workspaceId, frontier]);
    frontier = rows.map((row) => row.id).filter((id) => !closure.has(id));
    for (const id of frontier) closure.add(id);
    if (closure.size > maxRecords) throw tooLarge(maxRecords);
  }
  return [...closure];
}
