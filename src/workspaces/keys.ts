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

/** The only form in which a key is stored: its SHA-256 digest, hex encoded. */
export function keyDigest(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}
