// SQL literals for the few statements that cannot take parameters: DDL, and the predicates and
// expressions a query must repeat word for word for the planner to match a partial or expression
// index. standard_conforming_strings is on in every supported server, so doubling quotes suffices.

export function sqlLiteral(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** A text[] literal, each element quoted (any character may appear in an element). */
export function sqlTextArray(elements: string[]): string {
  const quoted = elements.map((e) => `"${e.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`);
  return `${sqlLiteral(`{${quoted.join(",")}}`)}::text[]`;
}
