// GET /context (docs/api.md "`GET /context`"): what an agent needs about one entity each turn,
// packed into a token budget. No model is called (the relevant search embeds the task like any
// search) and nothing is written: a consumer's cursor is read, never moved.
//
// The components, as docs/api.md lists them:
// - state: the entity's current active beliefs (GET /document's, tombstones left out), ordered
//   by collection and key; relevant: a search for task within the entity over the active
//   collections, k 20, best first (hybrid, or text where a profile does not embed; collections in
//   several places are one source each, fused: src/search/places.ts); recent: the entity's newest active records (at most
//   50, retractions left out), newest first; delta: the consumer's records past its cursor read
//   with GET /delta's default filters for this entity (so both share one cursor), at most 100,
//   oldest first. A consumer last read with other filters is 409 cursor_scope, as GET /delta.
// - components lists every component asked for (relevant only with task, delta only with
//   consumer); record_ids are the records rendered there; input_record_ids all of them in order.
import { collectionPlaces, FENCE_TAG, type InstalledCatalog, requireCatalog } from "../catalog/index.js";
import { validationError } from "../platform/errors.js";
import { currentHeads, delta, rowRecords, timeline, zonedInstant } from "../records/index.js";
import {
  displayScoreNames,
  placesSearch,
  type SearchDeps,
  type SearchLimits,
  search,
} from "../search/index.js";
import { type ComponentRows, dedupe, packComponents } from "./pack.js";

/** budget when none is given (docs/api.md "`GET /context`"), lowered to RENDER_BUDGET_TOKENS if lower. */
export const DEFAULT_CONTEXT_BUDGET = 4000;
const RELEVANT_K = 20;
const RECENT_LIMIT = 50;
const DELTA_LIMIT = 100;

export interface ContextQuery {
  entity: string;
  task?: string;
  budget?: number;
  consumer?: string;
  fence_tag?: string;
  fence_preamble?: string;
  /** Memory as it was then (docs/api.md "Memory over time"); not with consumer. */
  as_of?: string;
}

export type ContextDeps = SearchDeps & SearchLimits;

/** Refusals the route's schema cannot express (and MCP callers need too). */
function checkQuery(deps: ContextDeps, query: ContextQuery): void {
  const errors = [];
  if (query.fence_preamble !== undefined && query.fence_tag === undefined) {
    errors.push({ path: "fence_preamble", message: "needs fence_tag" });
  }
  if (query.fence_tag !== undefined && !FENCE_TAG.test(query.fence_tag)) {
    errors.push({
      path: "fence_tag",
      message: "must be an element name (letters, digits, _ . -; at most 64)",
    });
  }
  if (query.budget !== undefined && query.budget > deps.renderBudgetTokens) {
    errors.push({
      path: "budget",
      message: `must be at most ${deps.renderBudgetTokens} (RENDER_BUDGET_TOKENS)`,
    });
  }
  if (query.entity.trim() === "") errors.push({ path: "entity", message: "must not be blank" });
  if (query.task !== undefined && query.task.trim() === "") {
    errors.push({ path: "task", message: "must not be blank (leave it out for no relevant records)" });
  }
  // A consumer's delta is what is new to it now: a read of the past has no cursor to read.
  if (query.as_of !== undefined && query.consumer !== undefined) {
    errors.push({ path: "consumer", message: "cannot be combined with as_of (a cursor is read now)" });
  }
  if (query.task !== undefined && query.task.length > deps.maxQueryChars) {
    errors.push({
      path: "task",
      message: `must be at most ${deps.maxQueryChars} characters (MAX_QUERY_CHARS)`,
    });
  }
  if (errors.length > 0) {
    throw validationError(
      `invalid context request: ${errors.map((e) => `${e.path}: ${e.message}`).join("; ")}`,
      errors,
    );
  }
}

async function relevantRows(
  deps: ContextDeps,
  workspaceId: string,
  catalog: InstalledCatalog,
  query: { entity: string; task: string; asOf?: string },
) {
  const places = collectionPlaces(catalog.index);
  if (places.length === 0) return [];
  const spec = placesSearch(places, {
    q: query.task,
    k: RELEVANT_K,
    scope: { entities: [query.entity] },
    asOf: query.asOf,
  });
  const result = await search(deps, workspaceId, spec);
  return rowRecords(
    deps.db,
    workspaceId,
    result.hits.map((hit) => hit.id),
  );
}

async function recentRows(deps: ContextDeps, workspaceId: string, entity: string, asOf?: Date) {
  const page = await timeline(deps.db, workspaceId, {
    entity,
    asOf,
    status: "active",
    includeSystem: false,
    limit: RECENT_LIMIT,
  });
  const ids = (page.rows as unknown as { id: string; tombstone: boolean }[])
    .filter((row) => !row.tombstone)
    .map((row) => row.id);
  return rowRecords(deps.db, workspaceId, ids);
}

async function deltaRows(deps: ContextDeps, workspaceId: string, entity: string, consumer: string) {
  const page = await delta(deps.db, workspaceId, {
    consumer,
    scope: { entity, collection: null, status: "all", includeSystem: false },
    limit: DELTA_LIMIT,
  });
  return rowRecords(
    deps.db,
    workspaceId,
    (page.records as unknown as { id: string }[]).map((row) => row.id),
  );
}

/** GET /context: the entity's components rendered within the budget. */
export async function assembleContext(deps: ContextDeps, workspaceId: string, query: ContextQuery) {
  checkQuery(deps, query);
  const asOf = zonedInstant(query.as_of, "querystring.as_of");
  const catalog = await requireCatalog(deps.db, workspaceId);
  const { entity } = query;
  const budget = query.budget ?? Math.min(DEFAULT_CONTEXT_BUDGET, deps.renderBudgetTokens);
  // Bounded by the budget, not by DOCUMENT_MAX_RECORDS: each belief renders at least one token,
  // so no more than budget of them can show, and the packer cuts the rest to the state's share.
  const beliefs = await currentHeads(deps.db, workspaceId, {
    entity,
    status: "active",
    maxRecords: budget,
    firstBeliefs: true,
    asOf,
  });
  const gathered: ComponentRows[] = [{ name: "state", rows: beliefs }];
  if (query.task !== undefined) {
    gathered.push({
      name: "relevant",
      rows: await relevantRows(deps, workspaceId, catalog, { entity, task: query.task, asOf: query.as_of }),
    });
  }
  gathered.push({ name: "recent", rows: await recentRows(deps, workspaceId, entity, asOf) });
  if (query.consumer !== undefined) {
    gathered.push({ name: "delta", rows: await deltaRows(deps, workspaceId, entity, query.consumer) });
  }
  const fence =
    query.fence_tag === undefined
      ? undefined
      : { tag: query.fence_tag, ...(query.fence_preamble ? { preamble: query.fence_preamble } : {}) };
  return packComponents(dedupe(gathered), {
    budget,
    ...(fence ? { fence } : {}),
    displayScores: displayScoreNames(catalog.index),
  });
}
