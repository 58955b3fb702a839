// Items as Engram stores them: one keyed record per version, content {namespace, value}. An
// item's createdAt rides in the record's occurred_at (each version carries the first one's
// forward, see writes.ts) and its updatedAt is the version's created_at: both come with the
// version itself, whichever way it was read (a slot's history, or a record by id).
import type { HistoryVersion, StoredRecord } from "@engram/client";
import type { Item } from "@langchain/langgraph";
import type { StoreContext } from "./context.js";

/** A search result: an item, with its relevance when the search had a query. */
export type SearchItem = Item & { score?: number };

/** The stored content of an item's record (a tombstone holds only the namespace). */
export interface ItemContent {
  namespace: string[];
  value?: Record<string, unknown>;
}

type Version = Pick<HistoryVersion, "content" | "occurred_at" | "created_at" | "key">;

export function itemOf(namespace: string[], version: Version): Item {
  const { value } = version.content as Partial<ItemContent>;
  return {
    namespace,
    key: version.key,
    value: value ?? {},
    createdAt: new Date(version.occurred_at),
    updatedAt: new Date(version.created_at),
  };
}

/**
 * The live version of one item: the newest active version of its slot unless that is a
 * tombstone. One GET /document/history of one row: the exact slot, with its content, read
 * whether or not Engram has finished enriching it (a put is readable at once).
 */
export async function liveVersion(
  ctx: StoreContext,
  entity: string,
  key: string,
): Promise<HistoryVersion | undefined> {
  for await (const version of ctx.engram.history({ entity, collection: ctx.collection, key, limit: 1 })) {
    // Only a draft written by someone else could precede the active head: look past it.
    if (version.status !== "active") continue;
    return version.tombstone ? undefined : version;
  }
  return undefined;
}

/** A full record (GET /records/{id}) as a search result. */
export function searchItemOf(namespace: string[], record: StoredRecord, score?: number): SearchItem {
  const key = record.key;
  if (key === null) throw new Error(`record ${record.id} of ${record.collection} has no key`);
  return { ...itemOf(namespace, { ...record, key }), ...(score === undefined ? {} : { score }) };
}
