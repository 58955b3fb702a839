import { describe, expect, it } from "vitest";
import { type CollectionDef, type FieldDecl, INCLUDE_FIELDS } from "../../src/catalog/index.js";
import { HIT_TEXT_CHARS, shapeHit, shortenMiddle } from "../../src/search/shape.js";
import type { ShownCandidate } from "../../src/search/types.js";

function candidate(over: Partial<ShownCandidate> = {}): ShownCandidate {
  return {
    id: "11111111-1111-4111-8111-111111111111",
    seq: 7,
    collection: "customer_events",
    collection_version: 1,
    entity: "customer:42",
    type: "ticket",
    key: "plan",
    status: "active",
    depth: 0,
    run_id: null,
    text: "hello world",
    content: { customer: { tier: "gold" }, amount: 12 },
    scores: { urgency: 0.83 },
    annotations: { sentiment: "positive" },
    occurred_at: new Date("2026-01-02T03:04:05.678Z"),
    created_at: new Date("2026-01-03T00:00:00.000Z"),
    last_accessed: null,
    ...over,
  };
}

function decl(path: string): FieldDecl {
  return { path, type: "string", filter: true, sort: false, return: true, project: false };
}

function collection(version: number, fields: Record<string, FieldDecl>): CollectionDef {
  return {
    name: "customer_events",
    version,
    active: true,
    mode: "mixed",
    schema: {},
    fields,
    required_processors: ["sentiment"],
    search_profile: "default",
    answerable: false,
  };
}

const v1 = collection(1, { tier: decl("customer.tier"), amount: decl("amount") });
const none = { include: [], fields: [], annotations: [] };
const codePoints = (s: string) => Array.from(s).length;

describe("shortenMiddle", () => {
  it("leaves text within the limit untouched", () => {
    expect(shortenMiddle("short", 10)).toBe("short");
    expect(shortenMiddle("x".repeat(10), 10)).toBe("x".repeat(10));
    expect(shortenMiddle("", 5)).toBe("");
  });

  it("bounds the length, keeps head and tail and marks the omission", () => {
    const text = `HEAD-${"m".repeat(5000)}-TAIL`;
    for (const max of [60, 100, 500, 2000]) {
      const out = shortenMiddle(text, max);
      expect(codePoints(out)).toBeLessThanOrEqual(max);
      expect(codePoints(out)).toBeGreaterThanOrEqual(max - 1);
      expect(out.startsWith("HEAD-")).toBe(true);
      expect(out.endsWith("-TAIL")).toBe(true);
      const match = / … \[(\d+) characters omitted\] … /.exec(out);
      expect(match).not.toBeNull();
      // The omitted count is exact.
      expect(codePoints(out) - codePoints(match?.[0] ?? "") + Number(match?.[1])).toBe(codePoints(text));
    }
  });

  it("counts code points and never splits a surrogate pair", () => {
    const text = "😀".repeat(3000);
    const out = shortenMiddle(text, 2000);
    expect(codePoints(out)).toBeLessThanOrEqual(2000);
    expect(out).toContain("characters omitted");
    // No lone surrogates anywhere.
    expect(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(out)).toBe(false);
    // 1,500 emoji are 3,000 UTF-16 units but within a 2,000 code point limit.
    expect(shortenMiddle("😀".repeat(1500), 2000)).toBe("😀".repeat(1500));
  });

  it("returns a plain prefix when the marker itself does not fit", () => {
    expect(shortenMiddle("abcdefghijklmnopqrstuvwxyz".repeat(4), 5)).toBe("abcde");
    expect(shortenMiddle("abc", 0)).toBe("");
  });
});

describe("shapeHit", () => {
  it("returns nothing when nothing is requested", () => {
    expect(shapeHit(candidate(), none, v1)).toEqual({});
  });

  it("shapes each include value", () => {
    const c = candidate({ run_id: "22222222-2222-4222-8222-222222222222", depth: 2, status: "draft" });
    const hit = shapeHit(c, { ...none, include: [...INCLUDE_FIELDS] }, v1);
    expect(hit).toEqual({
      text: "hello world",
      scores: { urgency: 0.83 },
      collection: "customer_events",
      collection_version: 1,
      entity: "customer:42",
      type: "ticket",
      key: "plan",
      status: "draft",
      depth: 2,
      occurred_at: "2026-01-02T03:04:05.678Z",
      created_at: "2026-01-03T00:00:00.000Z",
      run_id: "22222222-2222-4222-8222-222222222222",
    });
    expect(Object.keys(hit)).toEqual([...INCLUDE_FIELDS]);
    expect(hit.fields).toBeUndefined();
    expect(hit.annotations).toBeUndefined();
  });

  it("includes only what was asked, one key at a time", () => {
    for (const field of INCLUDE_FIELDS) {
      const hit = shapeHit(candidate(), { ...none, include: [field] }, v1);
      expect(Object.keys(hit)).toEqual([field]);
    }
  });

  it("keeps null key and run_id as null", () => {
    const hit = shapeHit(candidate({ key: null }), { ...none, include: ["key", "run_id"] }, v1);
    expect(hit).toEqual({ key: null, run_id: null });
  });

  it("shortens included text to 2,000 characters from the middle", () => {
    const text = `start ${"lorem ipsum ".repeat(1000)} end`;
    const hit = shapeHit(candidate({ text }), { ...none, include: ["text"] }, v1);
    const out = hit.text as string;
    expect(codePoints(out)).toBeLessThanOrEqual(HIT_TEXT_CHARS);
    expect(out.startsWith("start ")).toBe(true);
    expect(out.endsWith(" end")).toBe(true);
    expect(out).toContain("characters omitted");
  });

  it("does not escape hit text", () => {
    const hit = shapeHit(candidate({ text: "<b>&</b>" }), { ...none, include: ["text"] }, v1);
    expect(hit.text).toBe("<b>&</b>");
  });

  it("returns a copy of the scores", () => {
    const c = candidate();
    const hit = shapeHit(c, { ...none, include: ["scores"] }, v1);
    (hit.scores as Record<string, number>).urgency = 0;
    expect(c.scores.urgency).toBe(0.83);
  });

  it("reads fields by each record's exact collection version declaration", () => {
    const v2 = collection(2, { tier: decl("plan.tier"), amount: decl("amount") });
    const request = { ...none, fields: ["tier", "amount"] };
    const old = candidate({ collection_version: 1, content: { customer: { tier: "gold" }, amount: 5 } });
    const newer = candidate({
      collection_version: 2,
      content: { customer: { tier: "wrong" }, plan: { tier: "silver" }, amount: 9 },
    });
    expect(shapeHit(old, request, v1).fields).toEqual({ tier: "gold", amount: 5 });
    expect(shapeHit(newer, request, v2).fields).toEqual({ tier: "silver", amount: 9 });
  });

  it("refuses a declaration of another collection version", () => {
    expect(() => shapeHit(candidate({ collection_version: 2 }), none, v1)).toThrow(/customer_events@2/);
  });

  it("gives null for absent values and undeclared fields", () => {
    const c = candidate({ content: { customer: "not an object" } });
    const hit = shapeHit(c, { ...none, fields: ["tier", "amount", "nope", "constructor", "__proto__"] }, v1);
    const fields = hit.fields as Record<string, unknown>;
    expect(Object.keys(fields)).toEqual(["tier", "amount", "nope", "constructor", "__proto__"]);
    for (const name of Object.keys(fields)) expect(fields[name]).toBeNull();
    expect(Object.getPrototypeOf(fields)).toBe(Object.prototype);
  });

  it("keeps falsy field values and structured values", () => {
    const c = candidate({ content: { customer: { tier: "" }, amount: 0 } });
    expect(shapeHit(c, { ...none, fields: ["tier", "amount"] }, v1).fields).toEqual({ tier: "", amount: 0 });
    const v3 = collection(1, { tags: { ...decl("tags"), type: "string_array" } });
    const tagged = candidate({ content: { tags: ["a", "b"] } });
    expect(shapeHit(tagged, { ...none, fields: ["tags"] }, v3).fields).toEqual({ tags: ["a", "b"] });
  });

  it("maps annotations to stored values or null", () => {
    const c = candidate({ annotations: { sentiment: "positive", flag: false, empty: null } });
    const hit = shapeHit(
      c,
      { ...none, annotations: ["sentiment", "flag", "empty", "missing", "toString"] },
      v1,
    );
    expect(hit.annotations).toEqual({
      sentiment: "positive",
      flag: false,
      empty: null,
      missing: null,
      toString: null,
    });
  });
});
