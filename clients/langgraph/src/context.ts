// What every part of the store shares: the client, the collection its items live in, and how
// many requests it keeps in flight at once.
import type { Engram } from "@engram/client";

export interface StoreContext {
  engram: Engram;
  /** The keyed collection holding the items (catalog/collections/langgraph.yaml). */
  collection: string;
  /** The value fields whose text Engram indexes (LangGraph's index.fields); undefined: the whole value. */
  fields: readonly string[] | undefined;
  /** Requests in flight at once when one operation needs several (record reads, namespaces). */
  concurrency: number;
}

/** Record type of an item Engram indexes for query searches. */
export const ITEM_TYPE = "item";
/** Record type of an item put with `index: false`: listed and read, never matched by a query. */
export const UNINDEXED_ITEM_TYPE = "item_unindexed";
export const ITEM_TYPES: readonly string[] = [ITEM_TYPE, UNINDEXED_ITEM_TYPE];

/** Runs fn over items with at most `limit` calls pending, keeping the items' order. */
export async function mapConcurrent<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await fn(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
