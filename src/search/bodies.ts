// The bodies (text, content, annotations) of the records a search shows or reranks. Candidate
// lists hold hundreds of rows and carry what ranking reads; only the first k (or rerank's top_n)
// of the ranked pool are shown, so their bodies are read after ranking, in one statement.
import { type Db, queryRowsAsJson } from "../platform/db/index.js";
import type { Scored } from "./graph-boost.js";
import { BODIES } from "./sql.js";
import type { Candidate, RecordBody, ShownCandidate } from "./types.js";

export type Bodies = ReadonlyMap<string, RecordBody>;

/** A record of the window with its body (readBodies read it; its absence is a programming error). */
export function shown(bodies: Bodies, candidate: Candidate): ShownCandidate {
  const body = bodies.get(candidate.id);
  if (!body) throw new Error(`search: no body read for record ${candidate.id}`);
  return { ...candidate, ...body };
}

/**
 * The bodies of the first `count` records of the ranked pool. A record erased since its list
 * proposed it is gone: it leaves the pool and the next one takes its place (read in turn).
 */
export async function readBodies<T extends Scored>(
  db: Db,
  read: { workspaceId: string; ranked: readonly T[]; count: number },
): Promise<{ ranked: T[]; bodies: Bodies }> {
  const { workspaceId, count } = read;
  let pool = [...read.ranked];
  const bodies = new Map<string, RecordBody>();
  for (;;) {
    const ids = pool
      .slice(0, count)
      .map((r) => r.candidate.id)
      .filter((id) => !bodies.has(id));
    if (ids.length === 0) return { ranked: pool, bodies };
    const rows = await queryRowsAsJson<RecordBody & { id: string }>(db, {
      sql: BODIES,
      values: [workspaceId, ids],
      repeated: true,
    });
    for (const { id, ...body } of rows) bodies.set(id, body);
    const asked = new Set(ids);
    pool = pool.filter((r) => bodies.has(r.candidate.id) || !asked.has(r.candidate.id));
  }
}
