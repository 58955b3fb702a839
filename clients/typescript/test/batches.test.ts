import { describe, expect, it } from "vitest";
import { splitBatches } from "../src/batches.js";
import { retryAfter } from "../src/errors.js";

const row = (i: number, text = "") => ({
  collection: "c",
  entity: "e",
  type: "t",
  text,
  dedupe_key: `k${i}`,
});

describe("splitting a write into batches", () => {
  it("keeps every row, in order, within the row limit", () => {
    const rows = Array.from({ length: 25 }, (_, i) => row(i));
    const batches = splitBatches(rows, { max_batch_records: 10, max_body_bytes: 1 << 20 });
    expect(batches.map((b) => [b.start, b.rows.length])).toEqual([
      [0, 10],
      [10, 10],
      [20, 5],
    ]);
    expect(batches.flatMap((b) => b.rows)).toEqual(rows);
  });

  it("keeps each request body within the byte limit, counting UTF-8 bytes", () => {
    const rows = Array.from({ length: 6 }, (_, i) => row(i, "é".repeat(100)));
    const limit = 600;
    const batches = splitBatches(rows, { max_batch_records: 1000, max_body_bytes: limit });
    expect(batches.length).toBeGreaterThan(1);
    for (const batch of batches) {
      expect(new TextEncoder().encode(JSON.stringify({ records: batch.rows })).length).toBeLessThanOrEqual(
        limit,
      );
    }
    expect(batches.flatMap((b) => b.rows)).toEqual(rows);
  });

  it("sends a row larger than any request alone, for the server to refuse", () => {
    const batches = splitBatches([row(0), row(1, "x".repeat(1000)), row(2)], {
      max_batch_records: 10,
      max_body_bytes: 200,
    });
    expect(batches.map((b) => b.rows.length)).toEqual([1, 1, 1]);
  });
});

describe("Retry-After", () => {
  it("reads seconds and HTTP dates", () => {
    expect(retryAfter("3")).toBe(3000);
    expect(retryAfter(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(retryAfter(null)).toBeUndefined();
    expect(retryAfter("soon")).toBeUndefined();
  });
});
