// The `local` adapter (docs/catalog.md, "The local embedder"): semantic embeddings with no model
// API and nothing leaving the process. A text's vector is the mean of the unit word vectors of
// its words (wordTokens, stopwords left out, words outside the vocabulary skipped), scaled to unit
// length; a text with no known word gets the zero vector, which ranks as "no vector". Pure
// arithmetic in a fixed order on a fixed table: the same vector in every run, process and machine.
// It only embeds: a score, JSON or rerank target on it is refused when the catalog is published.
import { LOCAL_MODEL } from "../../catalog/index.js";
import { ModelOutputError } from "../errors.js";
import type { Adapter, Call, JsonInput, JsonResult, RerankInput, ScoreInput } from "../types.js";
import { wordTokens } from "../words.js";
import { STOPWORDS } from "./stopwords.js";
import { DIMENSIONS, type WordVectors, wordVectors } from "./vectors.js";

/** The embedding of one text over a loaded table. */
export function localEmbedding(table: WordVectors, text: string): number[] {
  const sum = new Float64Array(DIMENSIONS);
  for (const word of wordTokens(text)) {
    if (STOPWORDS.has(word)) continue;
    const row = table.index.get(word);
    if (row === undefined) continue;
    const offset = row * DIMENSIONS;
    for (let d = 0; d < DIMENSIONS; d++) sum[d] = (sum[d] as number) + (table.vectors[offset + d] as number);
  }
  let norm = 0;
  for (const value of sum) norm += value * value;
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  return Array.from(sum, (value) => value * scale);
}

export class LocalAdapter implements Adapter {
  constructor(private readonly cacheDir?: string) {}

  async embed(call: Call & { dimensions: number }, texts: string[]): Promise<number[][]> {
    if (call.model !== LOCAL_MODEL)
      throw new ModelOutputError(call.context, `the local adapter has no model "${call.model}"`);
    const table = await wordVectors(this.cacheDir);
    return texts.map((text) => localEmbedding(table, text));
  }

  async score(call: Call, _input: ScoreInput): Promise<number> {
    throw only(call);
  }

  async json(call: Call, _input: JsonInput): Promise<JsonResult> {
    throw only(call);
  }

  async rerank(call: Call, _input: RerankInput): Promise<number[]> {
    throw only(call);
  }
}

function only(call: Call): ModelOutputError {
  return new ModelOutputError(call.context, "the local adapter only embeds");
}
