// SQL literals for the few statements that cannot take parameters: DDL, and the predicates and
// expressions a query must repeat word for word for the planner to match a partial or expression
// index. Doubling quotes suffices while standard_conforming_strings is on, which both adapters
// check when they open (checkStandardStrings below).
import { DatabaseSetupError } from "./setup-error.js";
import { STANDARD_STRINGS } from "./sql.js";

export function sqlLiteral(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** One element of an array literal's text, quoted (any character may appear in it). */
export function arrayElement(text: string): string {
  return `"${text.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

/** A text[] literal, each element quoted. */
export function sqlTextArray(elements: string[]): string {
  return `${sqlLiteral(`{${elements.map(arrayElement).join(",")}}`)}::text[]`;
}

/**
 * Refuses a session where a backslash in a quoted literal is an escape: sqlLiteral's output,
 * and PGlite's prepared statements, which inline every parameter (pglite-statements.ts), would
 * then read a value ending in a backslash as escaping its closing quote.
 */
export async function checkStandardStrings(db: {
  query(text: string): Promise<{ rows: unknown[] }>;
}): Promise<void> {
  const { rows } = await db.query(STANDARD_STRINGS);
  if ((rows[0] as { setting?: string } | undefined)?.setting !== "on") {
    throw new DatabaseSetupError(
      "standard_conforming_strings is off for this database: Engram needs it on (the default since PostgreSQL 9.1); remove the setting (ALTER DATABASE … RESET standard_conforming_strings, or the connection's options)",
    );
  }
}
