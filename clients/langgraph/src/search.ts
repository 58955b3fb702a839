// search(namespacePrefix, {query, filter, limit, offset}). Both forms first list the namespaces
// under the prefix (GET /entities), since Engram scopes a search by entity exactly.
// - With a query: Engram's hybrid search (vector, full-text and recent proposals) over the items
//   of those namespaces, 100 entities per request. Items rank by max(similarity, text_match):
//   the relevance half of Engram's default hybrid formula, without its min-max normalization
//   (which is relative to each request's candidates) or its recency decay, so hits of several
//   requests compare and `score` means the same from one search to the next. Engram returns at
//   most 100 hits per request: offset + limit is at most 100, and a filter keeps what it finds
//   among the 100 best.
// - Without a query: every current item of those namespaces (GET /document per namespace), the
//   most recently updated first, including items Engram has not finished enriching.
// Hits and beliefs carry no content: each item shown (or tested by a filter) is read with GET
// /records/{id}, only as many as the page needs.
import { EngramError, type StoredRecord } from "@engram/client";
import type { SearchOperation } from "@langchain/langgraph";
import { ITEM_TYPE, ITEM_TYPES, mapConcurrent, type StoreContext } from "./context.js";
import { matchesFilter } from "./filter.js";
import { type SearchItem, searchItemOf } from "./items.js";
import { namespaceOf } from "./namespace.js";
import { type NamespaceEntity, namespacesUnder } from "./namespaces.js";

/** Engram's most hits and entities per search (SearchSpec k, scope.entities). */
export const SEARCH_MAX = 100;

/** Relevance as the store ranks by: comparable across requests (see the file header). */
const RELEVANCE = ["max", [["similarity"], ["text_match"]]];

interface Candidate {
  id: string;
  score?: number;
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

async function ranked(
  ctx: StoreContext,
  op: SearchOperation,
  query: string,
  found: NamespaceEntity[],
): Promise<Candidate[]> {
  const k = op.filter ? SEARCH_MAX : (op.offset ?? 0) + (op.limit ?? 10);
  const entities = found.map(({ entity }) => entity);
  const pages = await mapConcurrent(chunks(entities, SEARCH_MAX), ctx.concurrency, (scoped) =>
    ctx.engram.search({
      mode: "hybrid",
      q: query,
      k,
      scope: { collections: [ctx.collection], entities: scoped, types: [ITEM_TYPE] },
      rank: RELEVANCE,
    }),
  );
  // A stable sort: equal scores keep Engram's order (newest first).
  return pages
    .flatMap((page) => page.hits)
    .map((hit) => ({ id: hit.id, score: hit.rank_score ?? 0 }))
    .sort((a, b) => b.score - a.score);
}

async function listed(ctx: StoreContext, found: NamespaceEntity[]): Promise<Candidate[]> {
  const documents = await mapConcurrent(found, ctx.concurrency, async ({ entity }) => {
    const document = await ctx.engram.document({ entity, collections: [ctx.collection] });
    return document.beliefs
      .filter((belief) => ITEM_TYPES.includes(belief.type))
      .map((belief) => ({ id: belief.id, updatedAt: Date.parse(belief.created_at), key: belief.key }));
  });
  return documents
    .flat()
    .sort((a, b) => b.updatedAt - a.updatedAt || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map(({ id }) => ({ id }));
}

/** A candidate's record, or undefined when it was erased since it was listed. */
async function recordOf(ctx: StoreContext, id: string): Promise<StoredRecord | undefined> {
  try {
    return await ctx.engram.records.get(id);
  } catch (error) {
    if (error instanceof EngramError && error.status === 404) return undefined;
    throw error;
  }
}

/** The page of items the candidates hold, in their order: filtered, then offset and limit. */
async function page(ctx: StoreContext, candidates: Candidate[], op: SearchOperation): Promise<SearchItem[]> {
  const offset = op.offset ?? 0;
  const limit = op.limit ?? 10;
  // Without a filter every candidate is an item of the list: only the page is read.
  const pool = op.filter ? candidates : candidates.slice(offset, offset + limit);
  const skip = op.filter ? offset : 0;
  const kept: SearchItem[] = [];
  for (const window of chunks(pool, Math.max(limit, ctx.concurrency))) {
    const records = await mapConcurrent(window, ctx.concurrency, (candidate) => recordOf(ctx, candidate.id));
    window.forEach((candidate, i) => {
      const record = records[i];
      const namespace = record && namespaceOf(ctx.collection, record.entity);
      if (!record || !namespace) return;
      const item = searchItemOf(namespace, record, candidate.score);
      if (matchesFilter(item.value, op.filter)) kept.push(item);
    });
    if (kept.length >= skip + limit) break;
  }
  return kept.slice(skip, skip + limit);
}

export async function searchItems(ctx: StoreContext, op: SearchOperation): Promise<SearchItem[]> {
  // A blank query asks for no ranking (Engram would refuse it).
  const query = op.query?.trim() ? op.query : undefined;
  const end = (op.offset ?? 0) + (op.limit ?? 10);
  if (query !== undefined && end > SEARCH_MAX) {
    throw new RangeError(
      `A search with a query reads Engram's ${SEARCH_MAX} best matches: offset + limit must be at most ${SEARCH_MAX}, got ${end}`,
    );
  }
  const found = await namespacesUnder(ctx, op.namespacePrefix);
  if (found.length === 0) return [];
  const candidates = query === undefined ? await listed(ctx, found) : await ranked(ctx, op, query, found);
  return page(ctx, candidates, op);
}
