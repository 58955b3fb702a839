// EngramStore: LangGraph's BaseStore over Engram records. LangGraph's get, put, delete, search
// and listNamespaces all call batch(); it answers a batch's reads against the state before the
// batch (as LangGraph's InMemoryStore does), then writes its puts and deletes in one request.
import type { Engram } from "@engram/client";
import {
  BaseStore,
  type GetOperation,
  type ListNamespacesOperation,
  type Operation,
  type OperationResults,
  type PutOperation,
  type SearchOperation,
} from "@langchain/langgraph";
import { mapConcurrent, type StoreContext } from "./context.js";
import { itemOf, liveVersion } from "./items.js";
import { checkKey, entityOf } from "./namespace.js";
import { listNamespaces } from "./namespaces.js";
import { searchItems } from "./search.js";
import { applyWrites } from "./writes.js";

export interface EngramStoreOptions {
  /** The Engram client of the workspace holding the items. */
  engram: Engram;
  /**
   * The keyed collection of the items (default "langgraph_items", the collection of
   * catalog/collections/langgraph.yaml); the workspace's package must list it.
   */
  collection?: string;
  /**
   * Which value fields Engram indexes for query searches, in LangGraph's path syntax
   * ("title", "chapters[*].content"); default: the whole value. Engram embeds the text with the
   * collection's embedding processor, so LangGraph's `dims` and `embeddings` are not taken.
   */
  index?: { fields?: string[] };
  /** Requests kept in flight at once by an operation that needs several (default 4). */
  concurrency?: number;
}

export const DEFAULT_COLLECTION = "langgraph_items";

function isGet(op: Operation): op is GetOperation {
  return "key" in op && "namespace" in op && !("value" in op);
}

function isSearch(op: Operation): op is SearchOperation {
  return "namespacePrefix" in op;
}

function isWrite(op: Operation): op is PutOperation {
  return "value" in op;
}

export class EngramStore extends BaseStore {
  private readonly ctx: StoreContext;

  constructor(options: EngramStoreOptions) {
    super();
    const concurrency = options.concurrency ?? 4;
    if (!Number.isInteger(concurrency) || concurrency < 1) {
      throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
    }
    this.ctx = {
      engram: options.engram,
      collection: options.collection ?? DEFAULT_COLLECTION,
      fields: options.index?.fields,
      concurrency,
    };
  }

  /** The Engram entity holding a namespace's items (for reading them with the Engram client). */
  entityOf(namespace: string[]): string {
    return entityOf(this.ctx.collection, namespace);
  }

  async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    const reads = await mapConcurrent(operations, this.ctx.concurrency, (op) => this.read(op));
    await applyWrites(this.ctx, operations.filter(isWrite));
    return reads as OperationResults<Op>;
  }

  private async read(op: Operation): Promise<unknown> {
    if (isWrite(op)) return undefined;
    if (isGet(op)) {
      checkKey(op.key);
      const version = await liveVersion(this.ctx, entityOf(this.ctx.collection, op.namespace), op.key);
      return version ? itemOf([...op.namespace], version) : null;
    }
    if (isSearch(op)) return searchItems(this.ctx, op);
    return listNamespaces(this.ctx, op as ListNamespacesOperation);
  }
}
