// The SQL of declared fields, written once for the queries that filter and sort on them and for
// the expression indexes built over them (field-indexes.ts): the planner uses an index only when
// the query repeats its expression and predicate exactly, so both come from these functions and
// carry their constants as literals, not parameters.
import type { FieldDecl } from "../catalog/types.js";
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
