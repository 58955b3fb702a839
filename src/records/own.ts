// Records Engram writes itself into a catalog collection (artifact snapshots, feedback, saved
// answers): the active version's contract, the content checked against its schema, and the
// parents they rest on. They go through writeRows like any client write.
import { activeCollection, type InstalledCatalog } from "../catalog/index.js";
import { type AppError, validationError } from "../platform/errors.js";
import { hashJson } from "../platform/hash.js";
import { compileSchema, toFieldErrors } from "../platform/schema.js";
import type { NewRecord } from "./insert.js";

export interface OwnRow {
  collection: string;
  entity: string;
  type: string;
  text: string;
  content: Record<string, unknown>;
  /** Keyed and mixed targets need one; an event collection takes none. */
  key: string | null;
  /** The records this one rests on: both its derived_from and its citations. */
  parents: string[];
  dedupeKey: string | null;
  /** Where the content came from in the request, for error paths ("content", ""). */
  contentPath: string;
}

/**
 * A NewRecord for the collection's active version. A collection without an active version is
 * `unavailable` (the caller's own error); content the schema refuses is 422 request_schema.
 */
export function ownRecord(catalog: InstalledCatalog, row: OwnRow, unavailable: () => AppError): NewRecord {
  const entry = activeCollection(catalog.index, row.collection);
  if (!entry) throw unavailable();
  const collection = entry.def;
  const validate = compileSchema(collection.schema);
  if (!validate(row.content)) {
    const errors = toFieldErrors(validate.errors ?? [], row.contentPath);
    throw validationError(
      `collection ${collection.name}'s schema refuses the record: ${errors.map((e) => `${e.path}: ${e.message}`).join("; ")}`,
      errors,
    );
  }
  const parents = [...new Set(row.parents.map((id) => id.toLowerCase()))];
  const { contentPath: _path, parents: _parents, ...payload } = row;
  return {
    index: 0,
    collection,
    collectionHash: catalog.contracts[`${collection.name}@${collection.version}`] as string,
    entity: row.entity,
    type: row.type,
    text: row.text,
    content: row.content,
    occurredAt: null,
    dedupeKey: row.dedupeKey,
    key: collection.mode === "event" ? null : row.key,
    status: "active",
    tombstone: false,
    derivedFrom: parents,
    citations: parents,
    runId: null,
    scores: {},
    annotations: {},
    payloadHash: hashJson({ ...payload, parents }),
  };
}
