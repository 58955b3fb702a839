// Validation of POST /records rows against the installed catalog: every problem of every row
// is reported at once under records.<index>.<field>; one bad row refuses the whole batch.
import { activeCollection, type LoadedCatalog } from "../catalog/index.js";
import { isZonedTimestamp } from "../catalog/params.js";
import { Issues, isObject, type Path } from "../catalog/search-spec-read.js";
import type { CollectionDef } from "../catalog/types.js";
import { validationError } from "../platform/errors.js";
import { hashJson } from "../platform/hash.js";
import { compileSchema, toFieldErrors } from "../platform/schema.js";

/** The reserved collection of audit records; never writable by clients. */
export const SYSTEM_COLLECTION = "_system";

// Bounds on what one row may carry (spec: "the complete list of writable fields and their
// bounds: not shown"). Generous for real use, small enough that one batch stays bounded.
export const ROW_LIMITS = {
  entityChars: 256,
  typeChars: 128,
  keyChars: 256,
  dedupeKeyChars: 256,
  textChars: 100_000,
  derivedFrom: 100,
  scores: 64,
  annotations: 64,
  nameChars: 64,
} as const;

const WRITABLE = [
  "collection",
  "entity",
  "type",
  "text",
  "content",
  "occurred_at",
  "dedupe_key",
  "key",
  "status",
  "tombstone",
  "derived_from",
  "scores",
  "annotations",
] as const;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SCORE_NAME = /^[a-z][a-z0-9_]*$/;

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

function text(
  value: unknown,
  path: Path,
  issues: Issues,
  max: number,
  nonBlank: boolean,
): string | undefined {
  if (typeof value !== "string") return issues.add(path, "must be a string");
  if (nonBlank && value.trim() === "") return issues.add(path, "must not be blank");
  if (value.length > max) return issues.add(path, `must be at most ${max} characters`);
  return value;
}

function scoresOf(value: unknown, path: Path, issues: Issues): Record<string, number> {
  if (!isObject(value)) return issues.add(path, "must be an object of score name to number") ?? {};
  const entries = Object.entries(value);
  if (entries.length > ROW_LIMITS.scores) issues.add(path, `must have at most ${ROW_LIMITS.scores} scores`);
  for (const [name, score] of entries) {
    if (!SCORE_NAME.test(name) || name.length > ROW_LIMITS.nameChars)
      issues.add([...path, name], "is not a valid score name");
    if (typeof score !== "number" || !Number.isFinite(score))
      issues.add([...path, name], "must be a finite number");
  }
  return value as Record<string, number>;
}

function annotationsOf(value: unknown, path: Path, issues: Issues): Record<string, unknown> {
  if (!isObject(value)) return issues.add(path, "must be an object of name to value") ?? {};
  const names = Object.keys(value);
  if (names.length > ROW_LIMITS.annotations)
    issues.add(path, `must have at most ${ROW_LIMITS.annotations} annotations`);
  for (const name of names) {
    if (!SCORE_NAME.test(name) || name.length > ROW_LIMITS.nameChars)
      issues.add([...path, name], "is not a valid annotation name");
  }
  return value;
}

function derivedFromOf(value: unknown, path: Path, issues: Issues): string[] {
  if (!Array.isArray(value)) return issues.add(path, "must be a list of record ids") ?? [];
  if (value.length > ROW_LIMITS.derivedFrom)
    issues.add(path, `must have at most ${ROW_LIMITS.derivedFrom} parents`);
  const ids: string[] = [];
  value.forEach((id, i) => {
    if (typeof id !== "string" || !UUID.test(id)) issues.add([...path, i], "must be a record id (UUID)");
    else if (ids.includes(id.toLowerCase())) issues.add([...path, i], "is listed twice");
    else ids.push(id.toLowerCase());
  });
  return ids;
}

/** The key rules of the collection's mode: keyed needs one, event refuses one, mixed either. */
function keyOf(
  row: Record<string, unknown>,
  collection: CollectionDef,
  path: Path,
  issues: Issues,
): string | null {
  if (row.key === undefined || row.key === null) {
    if (collection.mode === "keyed")
      issues.add([...path, "key"], `is required in keyed collection ${collection.name}`);
    return null;
  }
  if (collection.mode === "event") {
    return issues.add([...path, "key"], `is not allowed in event collection ${collection.name}`) ?? null;
  }
  return text(row.key, [...path, "key"], issues, ROW_LIMITS.keyChars, true) ?? null;
}

function validateRow(
  raw: unknown,
  index: number,
  catalog: LoadedCatalog,
  issues: Issues,
): ValidRow | undefined {
  const path = ["records", index];
  if (!isObject(raw)) return issues.add(path, "must be an object");
  for (const field of Object.keys(raw)) {
    if (!(WRITABLE as readonly string[]).includes(field))
      issues.add([...path, field], "is not a writable field");
  }
  const before = issues.count;
  const name = text(raw.collection, [...path, "collection"], issues, ROW_LIMITS.nameChars, true);
  const entry = name === undefined ? undefined : activeCollection(catalog.index, name);
  if (name === SYSTEM_COLLECTION)
    issues.add([...path, "collection"], "the _system collection is not writable");
  else if (name !== undefined && !entry)
    issues.add([...path, "collection"], `no active collection "${name}" in the catalog`);
  const entity = text(raw.entity, [...path, "entity"], issues, ROW_LIMITS.entityChars, true);
  const type = text(raw.type, [...path, "type"], issues, ROW_LIMITS.typeChars, true);
  const body =
    raw.text === undefined ? "" : text(raw.text, [...path, "text"], issues, ROW_LIMITS.textChars, false);
  const occurredAt = raw.occurred_at === undefined ? null : raw.occurred_at;
  if (occurredAt !== null && !isZonedTimestamp(occurredAt)) {
    issues.add([...path, "occurred_at"], "must be an ISO 8601 timestamp with a timezone");
  }
  const dedupeKey =
    raw.dedupe_key === undefined
      ? null
      : (text(raw.dedupe_key, [...path, "dedupe_key"], issues, ROW_LIMITS.dedupeKeyChars, true) ?? null);
  const status = raw.status === undefined ? "active" : raw.status;
  if (status !== "active" && status !== "draft") issues.add([...path, "status"], "must be active or draft");
  const tombstone = raw.tombstone === undefined ? false : raw.tombstone;
  if (typeof tombstone !== "boolean") issues.add([...path, "tombstone"], "must be true or false");
  const content = raw.content === undefined ? {} : raw.content;
  if (!isObject(content)) issues.add([...path, "content"], "must be an object");
  const derivedFrom =
    raw.derived_from === undefined ? [] : derivedFromOf(raw.derived_from, [...path, "derived_from"], issues);
  const scores = raw.scores === undefined ? {} : scoresOf(raw.scores, [...path, "scores"], issues);
  const annotations =
    raw.annotations === undefined ? {} : annotationsOf(raw.annotations, [...path, "annotations"], issues);
  if (!entry) return undefined;
  const collection = entry.def;
  const key = keyOf(raw, collection, path, issues);
  if (tombstone === true && key === null && collection.mode !== "keyed") {
    issues.add([...path, "tombstone"], "only a keyed row (with a key) can be a tombstone");
  }
  if (isObject(content)) {
    const validate = compileSchema(collection.schema);
    if (!validate(content)) {
      for (const error of toFieldErrors(validate.errors, "")) {
        issues.list.push({
          path: ["records", index, "content", error.path].filter((p) => p !== "").join("."),
          message: error.message,
        });
      }
    }
  }
  if (issues.count > before) return undefined;
  return {
    index,
    collection,
    collectionHash: catalog.contracts[`${collection.name}@${collection.version}`] as string,
    entity: entity as string,
    type: type as string,
    text: body as string,
    content: content as Record<string, unknown>,
    occurredAt: occurredAt as string | null,
    dedupeKey,
    key,
    status: status as "active" | "draft",
    tombstone: tombstone as boolean,
    derivedFrom,
    scores,
    annotations,
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

export function isUuid(value: string): boolean {
  return UUID.test(value);
}
