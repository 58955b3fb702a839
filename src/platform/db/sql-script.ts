/**
 * Splits a SQL script into its statements: at semicolons outside quotes ('…', "…"), dollar
 * quotes ($$…$$, $tag$…$tag$) and comments (-- to the end of the line, /* … *\/). Citus
 * refuses a query string holding several DDL statements on distributed tables ("cannot execute
 * multiple utility events"), so its migrations go one statement per query. Only our own
 * migration files pass through here: E'…' strings with backslash-escaped quotes are not read.
 */
export function splitStatements(script: string): string[] {
  const statements: string[] = [];
  let start = 0;
  let i = 0;
  const push = (end: number) => {
    const text = script.slice(start, end).trim();
    if (stripComments(text) !== "") statements.push(text);
  };
  while (i < script.length) {
    const ch = script[i];
    const next = script[i + 1];
    if (ch === "-" && next === "-") {
      const eol = script.indexOf("\n", i);
      i = eol === -1 ? script.length : eol + 1;
    } else if (ch === "/" && next === "*") {
      const close = script.indexOf("*/", i + 2);
      if (close === -1) throw new Error("unterminated /* comment in SQL script");
      i = close + 2;
    } else if (ch === "'" || ch === '"') {
      i = quotedEnd(script, i, ch);
    } else if (ch === "$") {
      const tag = /^\$[A-Za-z_]*\$/.exec(script.slice(i))?.[0];
      if (tag) {
        const close = script.indexOf(tag, i + tag.length);
        if (close === -1) throw new Error(`unterminated ${tag} quote in SQL script`);
        i = close + tag.length;
      } else i += 1;
    } else if (ch === ";") {
      push(i);
      i += 1;
      start = i;
    } else i += 1;
  }
  push(script.length);
  return statements;
}

/** The index after the quote that closes the one at `open` (a doubled quote is an escape). */
function quotedEnd(script: string, open: number, quote: string): number {
  let i = open + 1;
  for (;;) {
    const close = script.indexOf(quote, i);
    if (close === -1) throw new Error(`unterminated ${quote} quote in SQL script`);
    if (script[close + 1] !== quote) return close + 1;
    i = close + 2;
  }
}

function stripComments(text: string): string {
  return text
    .replace(/--[^\n]*/g, "")
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .trim();
}
