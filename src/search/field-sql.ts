// The SQL of declared fields, written once for the queries that filter and sort on them and for
// the expression indexes built over them (field-indexes.ts): the planner uses an index only when
// the query repeats its expression and predicate exactly, so both come from these functions and
// carry their constants as literals, not parameters.
import type { CollectionDef, FieldDecl } from "../catalog/index.js";
import { sqlLiteral, sqlTextArray } from "../platform/db/index.js";

/** The jsonb at a declared field's path in a record's content (`r.` or, in DDL, no alias). */
export function jsonAt(alias: string, path: string): string {
  return `(${alias}content #> ${sqlTextArray(path.split("."))})`;
}

export function numberAt(json: string): string {
  return `(CASE WHEN jsonb_typeof(${json}) = 'number' THEN (${json} #>> '{}')::numeric END)`;
}

export function timeAt(json: string): string {
  return `(CASE WHEN jsonb_typeof(${json}) = 'string' AND (${json} #>> '{}') ~ '^\\d{4}-\\d{2}-\\d{2}T' THEN (${json} #>> '{}')::timestamptz END)`;
}

/** The value a field sorts and compares by: numeric, timestamptz, or its text. */
export function fieldValueSql(alias: string, field: Pick<FieldDecl, "path" | "type">): string {
  const json = jsonAt(alias, field.path);
  if (field.type === "number" || field.type === "integer") return numberAt(json);
  if (field.type === "datetime") return timeAt(json);
  return `(${json} #>> '{}')`;
}

/** One collection version: the partial-index predicate, and the query's scope when it has one target. */
export function collectionVersionSql(alias: string, name: string, version: number): string {
  return `${alias}collection = ${sqlLiteral(name)} AND ${alias}collection_version = ${Math.trunc(version)}`;
}

// The statements that keep the field indexes in step with the active catalogs (field-indexes.ts).

/** A field index's name: the prefix and 24 hex digits of its declaration's hash. */
export const FIELD_INDEX_PREFIX = "records_field_";

/**
 * The catalogs active in some workspace, by hash: the indexes follow from a catalog's normalized
 * definitions, which its hash covers, so each is loaded once per process however many workspaces
 * install it. It reads across workspaces (every shard on Citus): the reconcile's cheap check.
 */
export const ACTIVE_CATALOG_HASHES =
  "SELECT DISTINCT catalog_hash AS hash FROM catalog_installs WHERE active ORDER BY 1";

/** One install's files of an active catalog not loaded yet. */
export const CATALOG_FILES =
  "SELECT package, files FROM catalog_installs WHERE active AND catalog_hash = $1 LIMIT 1";

/**
 * The field indexes records has, valid or not. An index stays invalid while CREATE INDEX
 * CONCURRENTLY builds it and after a build failed; the planner uses none that is invalid.
 */
export const FIELD_INDEXES = `
  SELECT c.relname AS name, i.indisvalid AS valid
  FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
  WHERE i.indrelid = 'records'::regclass AND c.relname ~ '^${FIELD_INDEX_PREFIX}[0-9a-f]{24}$'`;

// One reconcile at a time across processes: two would build the same index twice, and an
// invalid index then could be another's build in progress rather than a failed one. A session
// lock, tried rather than waited for: a session waiting for it would hold a snapshot that the
// holder's CREATE INDEX CONCURRENTLY waits for in turn.
const SYNC_LOCK = "hashtextextended('engram.field-indexes', 0)";
export const TRY_SYNC_LOCK = `SELECT pg_try_advisory_lock(${SYNC_LOCK}) AS held`;
export const SYNC_UNLOCK = `SELECT pg_advisory_unlock(${SYNC_LOCK})`;

export type IndexDirection = "ASC" | "DESC";

/**
 * A field index of one collection version: the order structured search asks for, the value in
 * its direction, nulls last, newest first (field-indexes.ts says which are wanted).
 */
export function createFieldIndexSql(index: {
  name: string;
  def: Pick<CollectionDef, "name" | "version">;
  field: Pick<FieldDecl, "path" | "type">;
  direction: IndexDirection;
  concurrently: boolean;
}): string {
  return `CREATE INDEX ${index.concurrently ? "CONCURRENTLY" : ""} IF NOT EXISTS ${index.name}
      ON records (workspace_id, ${fieldValueSql("", index.field)} ${index.direction} NULLS LAST, seq DESC)
      WHERE ${collectionVersionSql("", index.def.name, index.def.version)}`;
}

export const dropFieldIndexSql = (name: string, concurrently: boolean) =>
  `DROP INDEX ${concurrently ? "CONCURRENTLY " : ""}IF EXISTS ${name}`;
