// Validation of POST /records rows against the installed catalog: every problem of every row
// is reported at once under records.<index>.<field>; one bad row refuses the whole batch.
import {
  activeCollection,
  type CollectionDef,
  Issues,
  isZonedTimestamp,
  type LoadedCatalog,
  type Path,
} from "../catalog/index.js";
import { validationError } from "../platform/errors.js";
import { hashJson } from "../platform/hash.js";
import { compileSchema, toFieldErrors, type ValidateFunction } from "../platform/schema.js";
import { ROW_SCHEMA } from "./row-schema.js";

/** The reserved collection of audit records; never writable by clients. */
export const SYSTEM_COLLECTION = "_system";

/** A row that satisfies ROW_SCHEMA. */
interface Row {
  collection: string;
  entity: string;
  type: string;
  text?: string;
  content?: Record<string, unknown>;
  occurred_at?: string;
  dedupe_key?: string;
  key?: string | null;
  status?: "active" | "draft";
  tombstone?: boolean;
  derived_from?: string[];
  scores?: Record<string, number>;
  annotations?: Record<string, unknown>;
}

export interface ValidRow {
  index: number;
  collection: CollectionDef;
  collectionHash: string;
  entity: string;
  type: string;
  text: string;
  content: Record<string, unknown>;
  occurredAt: string | null;
  dedupeKey: string | null;
  key: string | null;
  status: "active" | "draft";
  tombstone: boolean;
  derivedFrom: string[];
  scores: Record<string, number>;
  annotations: Record<string, unknown>;
  /** Hash of the row as sent: a retry with the same dedupe_key must match it. */
  payloadHash: string;
}

/** Case-insensitive duplicates, which the schema's patterns cannot see. */
function derivedFromOf(ids: string[], path: Path, issues: Issues): string[] {
  const unique: string[] = [];
  ids.forEach((id, i) => {
    if (unique.includes(id.toLowerCase())) issues.add([...path, i], "is listed twice");
    else unique.push(id.toLowerCase());
  });
  return unique;
}

/** The key rules of the collection's mode: keyed needs one, event refuses one, mixed either. */
function keyOf(row: Row, collection: CollectionDef, path: Path, issues: Issues): string | null {
  if (row.key === undefined || row.key === null) {
    if (collection.mode === "keyed")
      issues.add([...path, "key"], `is required in keyed collection ${collection.name}`);
    return null;
  }
  if (collection.mode === "event") {
    return issues.add([...path, "key"], `is not allowed in event collection ${collection.name}`) ?? null;
  }
  return row.key as string;
}

/** Pushes a validator's errors under the row's path (records.<index>[.<under>]). */
function addSchemaErrors(validate: ValidateFunction, path: Path, issues: Issues): void {
  for (const error of toFieldErrors(validate.errors, "")) {
    issues.list.push({
      path: [...path, error.path].filter((p) => p !== "").join("."),
      message: error.message,
    });
  }
}

function validateRow(
  raw: unknown,
  index: number,
  catalog: LoadedCatalog,
  issues: Issues,
): ValidRow | undefined {
  const path = ["records", index];
  const validateShape = compileSchema(ROW_SCHEMA);
  if (!validateShape(raw)) {
    addSchemaErrors(validateShape, path, issues);
    return undefined;
  }
  const row = raw as Row;
  const before = issues.count;
  const entry = activeCollection(catalog.index, row.collection);
  if (row.collection === SYSTEM_COLLECTION)
    issues.add([...path, "collection"], "the _system collection is not writable");
  else if (!entry)
    issues.add([...path, "collection"], `no active collection "${row.collection}" in the catalog`);
  const occurredAt = row.occurred_at ?? null;
  if (occurredAt !== null && !isZonedTimestamp(occurredAt)) {
    issues.add([...path, "occurred_at"], "must be an ISO 8601 timestamp with a timezone");
  }
  const derivedFrom = derivedFromOf(row.derived_from ?? [], [...path, "derived_from"], issues);
  if (!entry) return undefined;
  const collection = entry.def;
  const key = keyOf(row, collection, path, issues);
  const tombstone = row.tombstone ?? false;
  if (tombstone && key === null && collection.mode !== "keyed") {
    issues.add([...path, "tombstone"], "only a keyed row (with a key) can be a tombstone");
  }
  const content = row.content ?? {};
  const validateContent = compileSchema(collection.schema);
  if (!validateContent(content)) addSchemaErrors(validateContent, [...path, "content"], issues);
  if (issues.count > before) return undefined;
  return {
    index,
    collection,
    collectionHash: catalog.contracts[`${collection.name}@${collection.version}`] as string,
    entity: row.entity,
    type: row.type,
    text: row.text ?? "",
    content,
    occurredAt,
    dedupeKey: row.dedupe_key ?? null,
    key,
    status: row.status ?? "active",
    tombstone,
    derivedFrom,
    scores: row.scores ?? {},
    annotations: row.annotations ?? {},
    payloadHash: hashJson(raw),
  };
}

/** Validates a whole batch; throws 422 request_schema listing every problem. */
export function validateRows(rows: unknown, catalog: LoadedCatalog, maxBatch: number): ValidRow[] {
  const issues = new Issues();
  if (!Array.isArray(rows) || rows.length === 0) {
    throw validationError("records must be a non-empty list", [
      { path: "records", message: "must be a non-empty list" },
    ]);
  }
  if (rows.length > maxBatch) {
    throw validationError(`at most ${maxBatch} records per request`, [
      { path: "records", message: `must have at most ${maxBatch} entries (MAX_BATCH_RECORDS)` },
    ]);
  }
  const valid = rows.map((row, index) => validateRow(row, index, catalog, issues));
  if (issues.count > 0)
    throw validationError(`${issues.count} problem(s) in the batch; nothing was written`, issues.list);
  return valid as ValidRow[];
}
