// The `fake` provider (DESIGN.md, "The fake provider"): deterministic and offline, so every
// feature runs and is tested without a network. Identical across runs, processes and machines:
// only pure arithmetic on the input (no Math.random, no clock, no locale).
//
// - Embeddings are LEXICAL, NOT SEMANTIC: feature hashing of normalized word unigrams and
//   bigrams. Texts sharing words land close together; synonyms ("car", "automobile") do not.
// - Scores are a stable function of the text alone (a SHA-256 derived fraction mapped into the
//   scale); the prompt does not change them.
// - Rerank relevance is lexical too: the share of the query's distinct words the document
//   contains (0 when the query has none).
// - JSON tasks are answered only from a script; without an entry the call fails with
//   ModelOutputError, which is how `POST /answer` answers `502 answer_model` under this provider.
//   Strings of a scripted value may cite the records the input shows (a derivation's evidence,
//   in the order shown): `{{evidence.N}}` is the id of the Nth (0-based; negative counts from
//   the newest end, -1 the last), `{{evidence.count}}` their number, and a string that is exactly
//   `{{evidence.ids}}` becomes the list of every id shown.
import { readFile } from "node:fs/promises";
import { parse } from "yaml";
import { sha256Hex } from "../platform/hash.js";
import { ModelOutputError } from "./errors.js";
import { estimateTokens, inputText } from "./parse.js";
import type { Adapter, Call, JsonInput, JsonResult, RerankInput, ScoreInput } from "./types.js";
import { wordTokens } from "./words.js";

// FNV-1a over UTF-16 code units, then the murmur3 finalizer so low bits (used for the index)
// and high bits (used for the sign) are both well mixed.
function hash32(text: string, seed: number): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * The fake embedding of one text: every unigram ("u:word") and bigram ("b:word next") adds ±1
 * at a hashed position (signed hashing keeps collisions unbiased), then the vector is
 * L2-normalized. A text without letters or digits (or, very rarely, one whose features cancel
 * out exactly) gives the zero vector: it has no cosine similarity to anything, so callers that
 * rank by cosine distance should treat it as "no vector".
 */
export function fakeEmbedding(text: string, dimensions: number): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  const tokens = wordTokens(text);
  const add = (feature: string) => {
    const index = hash32(feature, 0) % dimensions;
    const sign = hash32(feature, 0x9e3779b9) & 1 ? 1 : -1;
    vector[index] = (vector[index] as number) + sign;
  };
  tokens.forEach((token, i) => {
    add(`u:${token}`);
    const next = tokens[i + 1];
    if (next !== undefined) add(`b:${token} ${next}`);
  });
  let norm = 0;
  for (const x of vector) norm += x * x;
  if (norm === 0) return vector;
  const scale = 1 / Math.sqrt(norm);
  return vector.map((x) => x * scale);
}

/** The fake score of a text: the first 52 bits of SHA-256(text) as a fraction of the scale. */
export function fakeScore(text: string, scale: [number, number]): number {
  const fraction = Number.parseInt(sha256Hex(text).slice(0, 13), 16) / 2 ** 52;
  return scale[0] + fraction * (scale[1] - scale[0]);
}

/** The fake relevance of a document: the share of the query's distinct words it contains. */
export function fakeRelevance(query: string, document: string): number {
  const wanted = new Set(wordTokens(query));
  if (wanted.size === 0) return 0;
  const present = new Set(wordTokens(document));
  let found = 0;
  for (const word of wanted) if (present.has(word)) found++;
  return found / wanted.size;
}

/** The script key of a prompt: `sha256:<hex>`. */
export function promptKey(prompt: string): string {
  return `sha256:${sha256Hex(prompt)}`;
}

const EVIDENCE_PLACEHOLDER = /\{\{\s*evidence\.(-?\d+|count)\s*\}\}/g;
const ALL_EVIDENCE = /^\{\{\s*evidence\.ids\s*\}\}$/;

/** Fills a scripted value's evidence placeholders (see the header) from the ids shown. */
function citeShown(value: unknown, shown: readonly string[]): unknown {
  if (typeof value === "string") {
    if (ALL_EVIDENCE.test(value)) return [...shown];
    return value.replace(EVIDENCE_PLACEHOLDER, (whole, which: string) => {
      if (which === "count") return String(shown.length);
      const n = Number(which);
      return shown[n < 0 ? shown.length + n : n] ?? whole;
    });
  }
  if (Array.isArray(value)) return value.map((item) => citeShown(item, shown));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, citeShown(v, shown)]));
  }
  return value;
}

export class FakeAdapter implements Adapter {
  constructor(private readonly script: Record<string, unknown>) {}

  async embed(call: Call & { dimensions: number }, texts: string[]): Promise<number[][]> {
    return texts.map((text) => fakeEmbedding(text, call.dimensions));
  }

  async score(_call: Call, input: ScoreInput): Promise<number> {
    return fakeScore(input.text, input.scale);
  }

  async rerank(_call: Call, input: RerankInput): Promise<number[]> {
    return input.documents.map((document) => fakeRelevance(input.query, document));
  }

  /** The scripted value: by prompt hash first (the more specific key), then by task id. */
  async json(call: Call, input: JsonInput): Promise<JsonResult> {
    const byPrompt = promptKey(input.prompt);
    const key = [byPrompt, input.task].find((k) => Object.hasOwn(this.script, k));
    if (key === undefined) {
      throw new ModelOutputError(
        call.context,
        `the fake provider has no scripted output for task "${input.task}" (nor for ${byPrompt})`,
      );
    }
    const value = citeShown(structuredClone(this.script[key]), input.shown ?? []);
    return {
      value,
      usage: {
        prompt_tokens: estimateTokens(input.prompt) + estimateTokens(inputText(input.input)),
        completion_tokens: estimateTokens(JSON.stringify(value) ?? ""),
        estimated: true,
      },
    };
  }
}

/** A fake script from YAML text: a mapping from task id or `sha256:<hex>` to the output value. */
export function parseFakeScript(text: string, source = "fake script"): Record<string, unknown> {
  let value: unknown;
  try {
    value = parse(text);
  } catch (error) {
    throw new Error(`${source}: ${(error as Error).message}`, { cause: error });
  }
  if (value === null || value === undefined) return {};
  if (typeof value !== "object" || Array.isArray(value)) {
    throw new Error(`${source}: must be a mapping from task id or sha256:<hex of the prompt> to an output`);
  }
  return value as Record<string, unknown>;
}

/** Reads a fake script YAML file (see parseFakeScript). */
export async function loadFakeScript(path: string): Promise<Record<string, unknown>> {
  return parseFakeScript(await readFile(path, "utf8"), path);
}
