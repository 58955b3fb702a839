// Prepared statements on PGlite's one session, for reads that recur with other parameters
// (search's vector and recency lists, the shown records' bodies). In WebAssembly, parsing and
// planning such a statement costs about as much as running it: the hybrid vector list spent
// ~3 of its 9 ms there (bench/notes/pglite.md). Each distinct text is prepared once and run
// with a generic plan; its parameters go in as literals, since EXECUTE takes no bind parameters.
import type { PGlite } from "@electric-sql/pglite";
import { arrayElement, sqlLiteral } from "./literal.js";
import { executeGenericSql } from "./sql.js";
import { PREPARED_CAPACITY, type Queryable, type QueryResult } from "./types.js";

const INVALID_STATEMENT_NAME = "26000";

function arrayText(values: readonly unknown[]): string | undefined {
  const elements: string[] = [];
  for (const value of values) {
    if (value === null || value === undefined) {
      elements.push("NULL");
      continue;
    }
    const text = Array.isArray(value) ? arrayText(value) : scalarText(value);
    if (text === undefined) return undefined;
    elements.push(Array.isArray(value) ? text : arrayElement(text));
  }
  return `{${elements.join(",")}}`;
}

/** A scalar's text as PGlite would send it for a parameter (its serializers; toString else). */
function scalarText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint")
    return String(value);
  if (value instanceof Date) return value.toISOString();
  return undefined;
}

/**
 * A parameter as a literal of unknown type, which EXECUTE converts to the type PREPARE inferred
 * (as the bind step would); undefined for a value it has no literal for (objects).
 */
export function parameterLiteral(value: unknown): string | undefined {
  if (value === null || value === undefined) return "NULL";
  const text = Array.isArray(value) ? arrayText(value) : scalarText(value);
  // A NUL would end the statement's text early (it is a C string); no PostgreSQL text holds one.
  return text === undefined || text.includes("\u0000") ? undefined : sqlLiteral(text);
}

/**
 * query(text, params) through prepared statements. The generic plan is forced for the one
 * EXECUTE only (SET LOCAL in the implicit transaction of the two statements), so the session's
 * other statements keep their custom plans. A text whose parameters have no literal runs
 * unprepared, through `unprepared`.
 */
export function preparedStatements(
  pglite: PGlite,
  unprepared: Queryable["query"],
  // The least recently used statement is deallocated beyond it.
  capacity = PREPARED_CAPACITY,
) {
  // Text -> its statement's name once prepared, in least recently used order.
  const names = new Map<string, Promise<string>>();
  let next = 0;

  async function prepare(text: string): Promise<string> {
    const name = `engram_stmt_${++next}`;
    await pglite.query(`PREPARE ${name} AS ${text}`);
    return name;
  }

  async function evict(): Promise<void> {
    while (names.size > capacity) {
      const [text, name] = names.entries().next().value as [string, Promise<string>];
      names.delete(text);
      await name.then((n) => pglite.query(`DEALLOCATE ${n}`)).catch(() => undefined);
    }
  }

  return async function query<T>(text: string, params: unknown[]): Promise<QueryResult<T>> {
    const literals = params.map(parameterLiteral);
    if (literals.some((literal) => literal === undefined)) return unprepared<T>(text, params);
    let name = names.get(text);
    if (name) names.delete(text);
    else {
      const prepared = prepare(text);
      // A statement that does not prepare is not kept: the next call tries again.
      prepared.catch(() => names.get(text) === prepared && names.delete(text));
      name = prepared;
    }
    names.set(text, name);
    await evict();
    const args = literals.length > 0 ? `(${literals.join(", ")})` : "";
    let results: Awaited<ReturnType<PGlite["exec"]>>;
    try {
      results = await pglite.exec(executeGenericSql(await name, args));
    } catch (error) {
      // Deallocated meanwhile (evicted by as many other texts at once): run it unprepared.
      if ((error as { code?: string }).code === INVALID_STATEMENT_NAME) return unprepared<T>(text, params);
      throw error;
    }
    const result = results[results.length - 1];
    const rows = (result?.rows ?? []) as T[];
    return { rows, rowCount: result?.affectedRows ?? rows.length };
  };
}
