// The text Engram indexes for an item (full text and embedding): the value's JSON, or the
// fields LangGraph's index configuration names, in its path syntax: "title", "metadata.title",
// "chapters[*].content", "authors[0].name", "tags[-1]", "$" (the whole value).

/** Engram's bound on a record's text (ROW_LIMITS.textChars of the server). */
export const TEXT_MAX_CHARS = 100_000;

/** A path as steps: property names and list indexes ("*" for every element). */
function steps(path: string): string[] {
  return path.split(".").flatMap((part) => {
    const match = /^([^[]*)((?:\[[^\]]*\])*)$/.exec(part);
    if (!match) return [part];
    const indexes = [...(match[2] ?? "").matchAll(/\[([^\]]*)\]/g)].map((m) => `[${m[1]}]`);
    return match[1] ? [match[1], ...indexes] : indexes;
  });
}

function leafText(value: unknown): string[] {
  if (value === null || value === undefined) return [];
  if (typeof value === "object") return [JSON.stringify(value)];
  return [String(value)];
}

function textsAt(value: unknown, path: string[]): string[] {
  const [step, ...rest] = path;
  if (step === undefined) return leafText(value);
  if (step.startsWith("[")) {
    if (!Array.isArray(value)) return [];
    const index = step.slice(1, -1);
    if (index === "*") return value.flatMap((element) => textsAt(element, rest));
    const position = Number.parseInt(index, 10);
    if (Number.isNaN(position)) return [];
    const element = value[position < 0 ? value.length + position : position];
    return element === undefined ? [] : textsAt(element, rest);
  }
  if (typeof value !== "object" || value === null || !Object.hasOwn(value, step)) return [];
  return textsAt((value as Record<string, unknown>)[step], rest);
}

/** Cuts text to Engram's bound without splitting a surrogate pair. */
function bounded(text: string): string {
  if (text.length <= TEXT_MAX_CHARS) return text;
  const cut = text.slice(0, TEXT_MAX_CHARS);
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}

/** The record text of a value: its JSON without `fields`, else the fields' texts one per line. */
export function indexText(value: Record<string, unknown>, fields?: readonly string[]): string {
  if (!fields) return bounded(JSON.stringify(value));
  const texts = fields.flatMap((field) =>
    field === "$" ? [JSON.stringify(value)] : textsAt(value, steps(field)),
  );
  return bounded(texts.join("\n"));
}
