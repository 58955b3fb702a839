// Request and response types, all taken from the generated OpenAPI types (never written by hand).
import type { paths } from "./generated/openapi.js";

type Json<T> = T extends { content: { "application/json": infer B } } ? B : never;
/** The JSON body of an operation's success response (200, 201 for what is made, 202 for what is queued). */
export type ResponseBody<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  responses: { 200: infer R };
}
  ? Json<R>
  : paths[P][M] extends { responses: { 201: infer R } }
    ? Json<R>
    : paths[P][M] extends { responses: { 202: infer R } }
      ? Json<R>
      : never;
/** The JSON request body of an operation. */
export type RequestBody<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  requestBody?: infer B;
}
  ? Json<NonNullable<B>>
  : never;
/** An operation's query parameters. */
export type Query<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  parameters: { query?: infer Q };
}
  ? NonNullable<Q>
  : never;

export type RecordRow = RequestBody<"/records", "post">["records"][number];
export type WriteResponse = ResponseBody<"/records", "post">;
export type StoredRecord = ResponseBody<"/records/{id}", "get">;
export type TimelineQuery = Omit<Query<"/timeline", "get">, "before_seq">;
export type TimelinePage = ResponseBody<"/timeline", "get">;
export type TimelineRow = TimelinePage["records"][number];
export type HistoryQuery = Omit<Query<"/document/history", "get">, "before_seq">;
export type HistoryPage = ResponseBody<"/document/history", "get">;
export type HistoryVersion = HistoryPage["versions"][number];
export type EntitiesQuery = Omit<Query<"/entities", "get">, "after">;
export type RecordsQuery = Omit<Query<"/records", "get">, "before">;
export type RecordsPage = ResponseBody<"/records", "get">;
export type ListedRecord = RecordsPage["records"][number];
export type EntitiesPage = ResponseBody<"/entities", "get">;
export type EntitySummary = EntitiesPage["entities"][number];
export type DocumentQuery = Query<"/document", "get">;
export type EngramDocument = ResponseBody<"/document", "get">;
export type SearchSpec = RequestBody<"/search", "post">;
export type SearchResponse = ResponseBody<"/search", "post">;
export type ViewResponse = ResponseBody<"/views/{name}/query", "post">;
export type RenderResponse = ResponseBody<"/artifacts/{name}/render", "post">;
export type AnswerRequest = RequestBody<"/answer", "post">;
export type AnswerResponse = ResponseBody<"/answer", "post">;
export type ContextQuery = Query<"/context", "get">;
export type ContextResponse = ResponseBody<"/context", "get">;
export type EraseRequest = RequestBody<"/erase", "post">;
export type EraseResponse = ResponseBody<"/erase", "post">;
export type DeltaQuery = Omit<Query<"/delta", "get">, "consumer">;
export type DeltaPage = ResponseBody<"/delta", "get">;
export type CursorResponse = ResponseBody<"/cursor", "post">;
export type WorkspaceInfo = ResponseBody<"/workspace", "get">;
export type KeyList = ResponseBody<"/keys", "get">;
export type KeySummary = KeyList["keys"][number];
export type KeyRequest = RequestBody<"/keys", "post">;
export type CreatedKey = ResponseBody<"/keys", "post">;
export type ToolsResponse = ResponseBody<"/tools", "get">;
export type CatalogInfo = ResponseBody<"/catalog", "get">;
export type PublishRequest = RequestBody<"/catalog", "post">;
export type PublishResponse = ResponseBody<"/catalog", "post">;
export type RunRequest = RequestBody<"/processors/{name}/run", "post">;
export type RunQueued = ResponseBody<"/processors/{name}/run", "post">;
export type Job = ResponseBody<"/jobs/{id}", "get">;
export type RunsQuery = Omit<Query<"/runs", "get">, "before_seq">;
export type RunsPage = ResponseBody<"/runs", "get">;
export type RunSummary = RunsPage["runs"][number];
export type Run = ResponseBody<"/runs/{id}", "get">;
export type PromoteRequest = RequestBody<"/promote", "post">;
export type PromoteResponse = ResponseBody<"/promote", "post">;
