// Small pure helpers shared by the adapters: what is sent as a task's input, usage estimates,
// and reading JSON or a number out of a model's free text.

/** About four characters a token: the usage estimate when the provider reports none. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** A task's input as message text: a string as is, anything else as compact JSON. */
export function inputText(input: unknown): string {
  return typeof input === "string" ? input : (JSON.stringify(input) ?? "null");
}

/** Removes one surrounding Markdown code fence (```json ... ```), which chat models like to add. */
function unfence(text: string): string {
  const fenced = /^```[A-Za-z0-9_-]*\s*\n?([\s\S]*?)\n?```$/.exec(text.trim());
  return (fenced?.[1] ?? text).trim();
}

function tryParse(text: string): { value: unknown } | null {
  try {
    return { value: JSON.parse(text) };
  } catch {
    return null;
  }
}

/** The end (exclusive) of the balanced {...} starting at `start`, strings respected; -1 if none. */
function objectEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{") depth++;
    else if (c === "}" && --depth === 0) return i + 1;
  }
  return -1;
}

/**
 * The JSON value of a reply without a JSON mode: the whole reply (code fence removed) when it is
 * JSON, else the first balanced {...} in it that parses. Undefined when there is none.
 */
export function firstJsonObject(text: string): unknown {
  const whole = tryParse(unfence(text));
  if (whole) return whole.value;
  for (let start = text.indexOf("{"); start !== -1; start = text.indexOf("{", start + 1)) {
    const end = objectEnd(text, start);
    if (end === -1) continue;
    const parsed = tryParse(text.slice(start, end));
    if (parsed) return parsed.value;
  }
  return undefined;
}

const NUMBER = /[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?/g;

/**
 * The number in a score reply, or null: the reply itself ("7", "`0.8`", "7."), a JSON object
 * with one numeric member ({"score": 7}), or text holding exactly one number ("Score: 7").
 * Text with several numbers ("on a 1-10 scale, 7") is ambiguous and refused.
 */
export function parseScoreReply(text: string): number | null {
  const bare = unfence(text)
    .replace(/^["'`]+|["'`]+$/g, "")
    .replace(/\.$/, "")
    .trim();
  const asJson = tryParse(bare);
  if (typeof asJson?.value === "number") return asJson.value;
  if (asJson && typeof asJson.value === "object" && asJson.value !== null && !Array.isArray(asJson.value)) {
    const numbers = Object.values(asJson.value).filter((v): v is number => typeof v === "number");
    return numbers.length === 1 ? (numbers[0] as number) : null;
  }
  const found = bare.match(NUMBER) ?? [];
  if (found.length !== 1) return null;
  const value = Number(found[0]);
  return Number.isFinite(value) ? value : null;
}
