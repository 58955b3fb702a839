import { createHash } from "node:crypto";
import canonicalizeModule from "canonicalize";

// canonicalize is CommonJS; under NodeNext its typed default export is the module object.
const canonicalize = canonicalizeModule as unknown as (value: unknown) => string | undefined;

/** RFC 8785 canonical JSON: key order and white space never change the text. */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new Error("value has no JSON form");
  return text;
}

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** The stable hash of a JSON value (definitions, catalogs, contracts). */
export function hashJson(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}
