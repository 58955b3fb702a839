import { createHash, randomBytes } from "node:crypto";

const KEY_PREFIX = "egk_";
// egk_ followed by 32 random bytes in base64url (43 characters, no padding).
const KEY_FORMAT = /^egk_[A-Za-z0-9_-]{43}$/;

export function generateKey(): string {
  return KEY_PREFIX + randomBytes(32).toString("base64url");
}

export function isWellFormedKey(key: string): boolean {
  return KEY_FORMAT.test(key);
}

/** The part of a key kept in clear so a leaked key can be matched to its id: egk_ and 8 more characters. */
export function keyPrefix(key: string): string {
  return key.slice(0, KEY_PREFIX.length + 8);
}

// A key inside a longer text (a URL): its prefix, then whatever follows it.
const KEY_IN_TEXT = /(egk_[A-Za-z0-9_-]{8})[A-Za-z0-9_-]+/g;

/** The text with every key in it cut to its prefix, what GET /keys lists of it. */
export function redactKeys(text: string): string {
  return text.replace(KEY_IN_TEXT, "$1…");
}

/** The only form in which a key is stored: its SHA-256 digest, hex encoded. */
export function keyDigest(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}
