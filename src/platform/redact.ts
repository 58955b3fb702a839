// Secrets taken out of text: what a log line or a model provider's words may hold. A provider's
// error message or reply may quote what it was sent (a proxy echoing the Authorization header),
// and whatever a provider says can reach a client, a job, a run or a log (docs/operations.md,
// "Model endpoints"): the model router passes every such text through one redactor.

export const REDACTED = "[redacted]";

export type Redact = (text: string) => string;

/** Every occurrence of each secret replaced by [redacted]; the longest first, so none is left half-shown. */
export function redactor(secrets: Iterable<string | null | undefined>): Redact {
  const values = [...new Set(secrets)]
    .filter((value): value is string => typeof value === "string" && value !== "")
    .sort((a, b) => b.length - a.length);
  if (values.length === 0) return (text) => text;
  return (text) => values.reduce((out, value) => out.replaceAll(value, REDACTED), text);
}

/** A JSON value as a provider sent it, with every string in it (object keys included) redacted. */
export function redactValue(value: unknown, redact: Redact): unknown {
  if (typeof value === "string") return redact(value);
  if (Array.isArray(value)) return value.map((item) => redactValue(item, redact));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [redact(key), redactValue(item, redact)]),
    );
  }
  return value;
}
