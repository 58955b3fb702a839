// SQL literals for the few statements that cannot take parameters: DDL, and the predicates and
// expressions a query must repeat word for word for the planner to match a partial or expression
// index. standard_conforming_strings is on in every supported server, so doubling quotes suffices.

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
