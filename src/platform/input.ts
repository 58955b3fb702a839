// What any value a client sends must be before it goes further (README: "Input rules"): text
// PostgreSQL can store (no NUL, no lone UTF-16 surrogate; `text` and `jsonb` hold neither),
// finite numbers (JSON.parse reads 1e400 as Infinity), and bounded nesting (deeper values would
// overflow recursive code such as canonical hashing). Checked once at the edge: request bodies,
// query strings and path parameters over HTTP, and parsed YAML in catalog uploads.

/** Largest PostgreSQL integer (int4): versions, depths, counts and limits stored in such columns. */
export const INT4_MAX = 2_147_483_647;

/**
 * Largest sequence number or cursor position accepted. Columns are int8, but both database
 * adapters read int8 as a JavaScript number, so seq stays below 2^53 and larger inputs, which
 * JSON and query strings would round, are refused instead of read inexactly.
 */
export const SEQ_MAX = Number.MAX_SAFE_INTEGER;

/** A UUID in its canonical text form (any case): record, run and key ids. */
export const UUID_PATTERN = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$";
const UUID = new RegExp(UUID_PATTERN);

/** Whether an id a client sent can be a UUID; checked before a uuid column would refuse it. */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** Deepest nesting of objects and arrays in a request body: a record's content keeps 64 levels. */
export const MAX_INPUT_DEPTH = 72;

/** Most problems one refusal lists (a hostile body could have millions). */
const MAX_PROBLEMS = 20;

export interface InputProblem {
  path: (string | number)[];
  message: string;
}

// A high surrogate not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const UNSTORABLE = new RegExp(`\u0000|${LONE_SURROGATE.source}`, "g");

/** The text with each unstorable character replaced by U+FFFD, to name it in an error. */
export function printable(text: string): string {
  return text.replace(UNSTORABLE, "\uFFFD");
}

/** Why a string cannot be stored, or undefined when it can. */
export function textProblem(text: string): string | undefined {
  if (text.includes("\u0000")) return "must not contain the NUL character (U+0000)";
  if (LONE_SURROGATE.test(text)) return "must not contain a lone UTF-16 surrogate (invalid Unicode)";
  return undefined;
}

/**
 * The problems of a parsed value, at most MAX_PROBLEMS: bad text in strings
 * and object keys, non-finite numbers, nesting deeper than maxDepth. Iterative, so a value nested
 * a million levels is refused instead of overflowing the stack.
 */
export function inputProblems(value: unknown, maxDepth = MAX_INPUT_DEPTH): InputProblem[] {
  const problems: InputProblem[] = [];
  // Each node links to its parent: a path is built only for a problem, not for every value of a
  // large write batch.
  type Node = { value: unknown; key: string | number | undefined; parent: Node | undefined; depth: number };
  const pathOf = (node: Node, last?: string | number): (string | number)[] => {
    const path = last === undefined ? [] : [last];
    for (let at: Node | undefined = node; at?.key !== undefined; at = at.parent) path.unshift(at.key);
    return path;
  };
  const stack: Node[] = [{ value, key: undefined, parent: undefined, depth: 0 }];
  while (stack.length > 0 && problems.length < MAX_PROBLEMS) {
    const node = stack.pop() as Node;
    const item = node.value;
    if (typeof item === "string") {
      const problem = textProblem(item);
      if (problem) problems.push({ path: pathOf(node), message: problem });
    } else if (typeof item === "number") {
      if (!Number.isFinite(item)) problems.push({ path: pathOf(node), message: "must be a finite number" });
    } else if (item !== null && typeof item === "object") {
      if (node.depth >= maxDepth) {
        problems.push({
          path: pathOf(node),
          message: `nests deeper than ${maxDepth} levels of objects and arrays`,
        });
        continue;
      }
      const entries: [string | number, unknown][] = Array.isArray(item)
        ? item.map((child, i) => [i, child])
        : Object.entries(item);
      // Pushed in reverse so that values are visited in document order.
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i] as [string | number, unknown];
        const problem = typeof key === "string" ? textProblem(key) : undefined;
        if (problem)
          problems.push({ path: pathOf(node, key), message: `has a property name that ${problem}` });
        else stack.push({ value: child, key, parent: node, depth: node.depth + 1 });
      }
    }
  }
  return problems.slice(0, MAX_PROBLEMS);
}
