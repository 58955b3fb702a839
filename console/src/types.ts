// The API shapes the console reads, each named from the server's /openapi.json through the
// client's generated types (`npm run client:types` writes them and `.ci/run` fails when they are
// stale), never written by hand: a route's documented reply is the one source (docs/api.md).
import type { RequestBody, ResponseBody } from "../../clients/typescript/src/types";

// Workspace, jobs and catalog.

export type WorkspaceInfo = ResponseBody<"/workspace", "get">;
export type WorkspaceActivity = ResponseBody<"/workspace/activity", "get">;
export type KeyList = ResponseBody<"/keys", "get">;
export type KeySummary = KeyList["keys"][number];
export type CreatedKey = ResponseBody<"/keys", "post">;
export type Job = ResponseBody<"/jobs/{id}", "get">;
export type JobPage = ResponseBody<"/jobs", "get">;
export type Backfill = ResponseBody<"/backfill", "get">["backfills"][number] & BackfillProgress;
/** GET /catalog: the active package (404 no_catalog before the first publish). */
export type CatalogSummary = ResponseBody<"/catalog", "get">;
export type CatalogDefinitions = ResponseBody<"/catalog/definitions", "get">;
export type CompatibilityReport = Omit<
  ResponseBody<"/catalog/compatibility", "get">,
  "blockers" | "changes"
> & {
  blockers: CompatibilityBlocker[];
  changes?: CompatibilityChange[];
};
export type PruneReport = ResponseBody<"/catalog/prune", "get">;
/** POST /catalog without dry_run: what was installed (a dry run answers a CompatibilityReport). */
export type PublishResult = Extract<ResponseBody<"/catalog", "post">, { loaded: true }>;
export type CollectionsAnswer = ResponseBody<"/collections", "get">;
export type RankSchema = ResponseBody<"/rank/schema", "get">;

// Search and views (pages/search.tsx, pages/views.tsx).

export type SearchSpec = RequestBody<"/search", "post">;
type SearchAnswer = ResponseBody<"/search", "post">;
/**
 * A hit also holds what the search's `include`, `fields` and `annotations` asked for (docs/api.md
 * "The search response"): the hit schema leaves those open rather than listing every combination.
 */
export type SearchHit = SearchAnswer["hits"][number] & { [field: string]: unknown };
export type SearchResponse = Omit<SearchAnswer, "hits"> & { hits: SearchHit[] };
export type HitExplain = NonNullable<SearchHit["explain"]>;
/** One node of an explained rank expression (docs/api.md "Explaining a ranking: `explain`"). */
export type RankTreeNode = NonNullable<HitExplain["rank"]>;
export type OrderValue = NonNullable<HitExplain["order_by"]>[number];

/** A discovery entry of GET /views. */
export type ViewEntry = ResponseBody<"/views", "get">["views"][number];
export type InputSchema = ViewEntry["input_schema"];
/** A JSON Schema property of a view's input_schema (the subset a view's parameters use). */
export type SchemaProperty = InputSchema["properties"][string];
/** POST /views/{name}/query: a search view's answer, a graph's or an orphans', by the view's kind. */
export type ViewResponse = ResponseBody<"/views/{name}/query", "post">;
export type SearchViewResponse = Extract<ViewResponse, { ranking: unknown }>;
export type GraphViewResponse = Extract<ViewResponse, { citations: unknown }>;
export type OrphansViewResponse = Extract<ViewResponse, { orphans: unknown }>;
/** A link a graph walk used (its hits and its citations). */
export type GraphEdge = GraphViewResponse["citations"][number];

// Entities, entity, record and erase pages.

export type EntityList = ResponseBody<"/entities", "get">;
export type EntityRow = EntityList["entities"][number];
export type EntityDocument = ResponseBody<"/document", "get">;
export type Belief = EntityDocument["beliefs"][number];
export type Freshness = EntityDocument["freshness"][number];
export type TimelinePage = ResponseBody<"/timeline", "get">;
export type RecordsPage = ResponseBody<"/records", "get">;
export type HistoryPage = ResponseBody<"/document/history", "get">;
/** GET /records/{id}: one record with all its fields. */
export type FullRecord = ResponseBody<"/records/{id}", "get">;
export type CitedByPage = ResponseBody<"/records/{id}/cited-by", "get">;
export type RunList = ResponseBody<"/runs", "get">;
/** A derivation run as GET /runs lists it. */
export type RunSummary = RunList["runs"][number];
/** GET /runs/{id}: a run with its audit. */
export type RunDetail = ResponseBody<"/runs/{id}", "get">;
export type ArtifactSummary = ResponseBody<"/artifacts", "get">["artifacts"][number];
export type PromoteResult = ResponseBody<"/promote", "post">;
export type EraseAnswer = ResponseBody<"/erase", "post">;
export type ErasePreview = Extract<EraseAnswer, { dry_run: true }>;
export type EraseAudit = Exclude<EraseAnswer, ErasePreview>;
/** A derived record a dry run with list=true names. */
export type DerivedRecord = Extract<ErasePreview, { derived_records: unknown }>["derived_records"][number];

// Parts of replies the response schemas leave open (or do not list yet), read through these views
// the way docs/api.md describes them. A schema that lists one makes its view redundant: delete it.

/** A blocker names the records it protects, why, and what fixes it (docs/api.md "`POST /catalog`"). */
export interface CompatibilityBlocker {
  records: { collection: string; version: number; contract_hash: string; count: number };
  reason: string;
  action: string;
}

export interface CompatibilityChange {
  collection: string;
  version: number;
  count: number;
  verdict: string;
  reason: string;
}

/** Answered by GET /backfill beside the fields its schema lists (src/records/backfill.ts BackfillHandle). */
export interface BackfillProgress {
  cancel_requested?: boolean;
  created_at?: string;
  updated_at?: string;
}

// GET /runs/{id}: `read_receipt`, `emission` and `visible_sources`, open objects in the schema,
// as docs/api.md "Derivation runs" describes them.

export interface ReceiptHead {
  collection?: string;
  key: string;
  record_id?: string | null;
}

export interface ReceiptView {
  heads?: ReceiptHead[];
  sources?: {
    name?: string;
    kind?: string;
    record_count?: number;
    tokens?: number;
    truncated?: boolean;
    [field: string]: unknown;
  }[];
  watermark_from?: number;
  watermark_to?: number;
  checkpoint_seq?: number;
  generation?: number;
  [field: string]: unknown;
}

export interface EmissionView {
  collection?: string;
  type?: string;
  keys?: string[];
  complete?: boolean;
  review?: string;
  rejected?: { index: number; key?: string | null; reason: string }[];
}

export interface VisibleSourceView {
  source: string;
  kind: string;
  record_ids: string[];
  [field: string]: unknown;
}
