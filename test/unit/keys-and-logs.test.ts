import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { redactSecrets } from "../../src/platform/log.js";
import { generateKey, isWellFormedKey, keyDigest } from "../../src/workspaces/keys.js";

describe("workspace keys", () => {
  it("are egk_ followed by 43 base64url characters of 32 random bytes", () => {
    const key = generateKey();
    expect(key).toMatch(/^egk_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(key.slice(4), "base64url")).toHaveLength(32);
    expect(generateKey()).not.toBe(key);
    expect(isWellFormedKey(key)).toBe(true);
    expect(isWellFormedKey(`${key}x`)).toBe(false);
    expect(isWellFormedKey("egk_short")).toBe(false);
  });

  it("are stored as their SHA-256 digest", () => {
    const key = generateKey();
    expect(keyDigest(key)).toBe(createHash("sha256").update(key).digest("hex"));
  });
});

describe("log redaction", () => {
  it("hides authorization headers and every *_key field at any depth", () => {
    const out = redactSecrets({
      req: { headers: { authorization: "Bearer egk_secret", host: "x" } },
      api_key: "egk_secret",
      nested: [{ openai_api_key: "sk-1", dedupe_key: "d" }],
      msg: "kept",
    });
    expect(JSON.stringify(out)).not.toContain("secret");
    expect(JSON.stringify(out)).not.toContain("sk-1");
    expect(out).toMatchObject({ req: { headers: { host: "x" } }, msg: "kept" });
  });

  it("redacts objects without a prototype (parsed headers) and leaves class instances to pino's serializers", () => {
    const headers = Object.assign(Object.create(null), { authorization: "Bearer egk_secret", host: "x" });
    let walked = false;
    class Request {
      get raw() {
        walked = true;
        return {};
      }
    }
    const request = new Request();
    const out = redactSecrets({ headers, req: request }) as { headers: object; req: unknown };
    expect(out.headers).toEqual({ authorization: "[redacted]", host: "x" });
    expect(out.req).toBe(request);
    expect(walked).toBe(false);
  });
});
