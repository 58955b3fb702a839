// put and delete: one keyed row per item in one POST /records (split by the client at the
// server's limits). Each item's live version is read first (GET /document/history, one row):
// a put carries the item's createdAt forward in occurred_at (a new item takes the write time),
// and a delete of an item that is not there writes nothing, so it leaves no trace in Engram.
import type { HistoryVersion, RecordRow } from "@engram/client";
import type { PutOperation } from "@langchain/langgraph";
import { ITEM_TYPE, mapConcurrent, type StoreContext, UNINDEXED_ITEM_TYPE } from "./context.js";
import { type ItemContent, liveVersion } from "./items.js";
import { checkKey, entityOf } from "./namespace.js";
import { indexText } from "./text.js";

/** The row a put or delete writes, given the item's live version (none: the item is not there). */
function rowOf(
  ctx: StoreContext,
  op: PutOperation,
  entity: string,
  live: HistoryVersion | undefined,
): RecordRow | undefined {
  const base = {
    collection: ctx.collection,
    entity,
    key: op.key,
    // A retry of the same request is then listed as a duplicate, never written twice.
    dedupe_key: `langgraph:${crypto.randomUUID()}`,
  };
  if (op.value === null) {
    if (!live) return undefined;
    return {
      ...base,
      type: ITEM_TYPE,
      tombstone: true,
      text: "",
      content: { namespace: [...op.namespace] } satisfies ItemContent,
    };
  }
  const fields = op.index === undefined ? ctx.fields : op.index;
  return {
    ...base,
    type: fields === false ? UNINDEXED_ITEM_TYPE : ITEM_TYPE,
    text: fields === false ? "" : indexText(op.value, fields),
    content: { namespace: [...op.namespace], value: op.value } satisfies ItemContent,
    ...(live ? { occurred_at: live.occurred_at } : {}),
  };
}

/** Applies a batch's puts and deletes; of several for one item, the last wins (as in LangGraph's stores). */
export async function applyWrites(ctx: StoreContext, ops: PutOperation[]): Promise<void> {
  const last = new Map<string, { op: PutOperation; entity: string }>();
  for (const op of ops) {
    checkKey(op.key);
    const entity = entityOf(ctx.collection, op.namespace);
    const slot = JSON.stringify([entity, op.key]);
    last.delete(slot);
    last.set(slot, { op, entity });
  }
  const writes = [...last.values()];
  const live = await mapConcurrent(writes, ctx.concurrency, ({ entity, op }) =>
    liveVersion(ctx, entity, op.key),
  );
  const rows = writes
    .map(({ op, entity }, i) => rowOf(ctx, op, entity, live[i]))
    .filter((row): row is RecordRow => row !== undefined);
  if (rows.length > 0) await ctx.engram.records.write(rows);
}
