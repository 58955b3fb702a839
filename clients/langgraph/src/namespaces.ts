// Namespaces are the store's entities (namespace.ts): GET /entities?prefix= lists those under a
// prefix, in as many pages as there are.
import type { ListNamespacesOperation, MatchCondition } from "@langchain/langgraph";
import type { StoreContext } from "./context.js";
import { entityPrefix, namespaceOf } from "./namespace.js";

export interface NamespaceEntity {
  entity: string;
  namespace: string[];
}

/** Every namespace of the store under `prefix` (the namespace itself included), with its entity. */
export async function namespacesUnder(
  ctx: StoreContext,
  prefix: readonly string[],
): Promise<NamespaceEntity[]> {
  const found: NamespaceEntity[] = [];
  const pages = ctx.engram.entities({ prefix: entityPrefix(ctx.collection, prefix), limit: 100 });
  for await (const { entity } of pages) {
    const namespace = namespaceOf(ctx.collection, entity);
    if (namespace) found.push({ entity, namespace });
  }
  return found;
}

/** LangGraph's match: each label of the path equals the namespace's at that place, or is "*". */
function matches(condition: MatchCondition, namespace: string[]): boolean {
  const { path, matchType } = condition;
  if (path.length > namespace.length) return false;
  const start = matchType === "prefix" ? 0 : namespace.length - path.length;
  return path.every((label, i) => label === "*" || label === namespace[start + i]);
}

function compareNamespaces(a: string[], b: string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i += 1) {
    const x = a[i] as string;
    const y = b[i] as string;
    if (x !== y) return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

/**
 * listNamespaces: the namespaces matching every condition, cut to maxDepth (duplicates merged),
 * in label order, then offset and limit. Engram narrows the listing to the literal labels a
 * prefix condition starts with; wildcards and suffixes are matched here.
 */
export async function listNamespaces(ctx: StoreContext, op: ListNamespacesOperation): Promise<string[][]> {
  const conditions = op.matchConditions ?? [];
  const prefix = conditions.find((condition) => condition.matchType === "prefix")?.path ?? [];
  const wildcard = prefix.indexOf("*");
  const literal = wildcard === -1 ? prefix : prefix.slice(0, wildcard);
  const listed = (await namespacesUnder(ctx, literal))
    .map(({ namespace }) => namespace)
    .filter((namespace) => conditions.every((condition) => matches(condition, namespace)));
  const cut = op.maxDepth === undefined ? listed : listed.map((namespace) => namespace.slice(0, op.maxDepth));
  const unique = new Map(cut.map((namespace) => [JSON.stringify(namespace), namespace]));
  const sorted = [...unique.values()].sort(compareNamespaces);
  const offset = op.offset ?? 0;
  return sorted.slice(offset, offset + (op.limit ?? sorted.length));
}
