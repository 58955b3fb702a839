// One registry of error codes and their HTTP status. Every error a client sees is an
// AppError rendered as RFC 9457 problem details by the HTTP layer.

export const ERROR_STATUS = {
  // Requests the HTTP layer cannot read (bad percent-encoding, a malformed request line).
  bad_request: 400,
  unauthorized: 401,
  origin_forbidden: 403,
  // A read-only key on a route that writes (docs/api.md "Keys: several per workspace, read-only,
  // expiring, revocable").
  key_read_only: 403,
  // A key without scope admin on /keys (docs/api.md "Keys over HTTP").
  key_scope: 403,
  not_found: 404,
  view_not_found: 404,
  artifact_not_found: 404,
  artifact_use_not_found: 404,
  snapshot_not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  dedupe_conflict: 409,
  catalog_incompatible: 409,
  backfill_exists: 409,
  incomplete_space: 409,
  document_too_large: 409,
  response_too_large: 409,
  promotion_stale: 409,
  no_catalog: 409,
  cursor_scope: 409,
  cursor_regression: 409,
  workspace_exists: 409,
  // engram import: the target workspace holds data already (docs/export.md "Import").
  workspace_not_empty: 409,
  job_not_retryable: 409,
  reindex_running: 409,
  erase_too_large: 409,
  artifact_use_expired: 410,
  payload_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  request_schema: 422,
  // Catalog definition errors: each names the file and the dotted path inside it.
  yaml_syntax: 422,
  definition_unknown_file: 422,
  definition_invalid: 422,
  definition_duplicate: 422,
  definition_unresolved: 422,
  package_not_found: 422,
  package_not_closed: 422,
  artifact_snapshot: 422,
  learning_signals_unavailable: 422,
  answer_unavailable: 422,
  answer_question_too_large: 422,
  graph_ambiguous: 422,
  reindex_request: 422,
  // engram import: the file is not a complete engram.export/v1 stream (docs/export.md).
  import_invalid: 422,
  rate_limited: 429,
  queue_full: 429,
  headers_too_large: 431,
  internal: 500,
  answer_citation: 502,
  answer_model: 502,
  answer_model_unavailable: 503,
  database_unavailable: 503,
  // Every pooled connection stayed busy for the checkout timeout: retry shortly.
  database_busy: 503,
  embeddings_unavailable: 503,
  rerank_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** One item of a validation error list: where (a JSON pointer-like path) and what. */
export interface FieldError {
  path: string;
  message: string;
}

export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    detail: string,
    /** Extension members of the problem body (errors, file, path, compatibility, ...). */
    readonly extra: Record<string, unknown> = {},
    /** Overrides the registry status, for the few codes that are status-dependent. */
    status?: number,
  ) {
    super(detail);
    this.name = "AppError";
    this.status = status ?? ERROR_STATUS[code];
  }

  get detail(): string {
    return this.message;
  }
}

export function validationError(detail: string, errors: FieldError[]): AppError {
  return new AppError("request_schema", detail, { errors });
}
