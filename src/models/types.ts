// The public shape of the model layer and the one interface every provider adapter implements.
// Adapters only talk to their provider and parse its reply; the router checks what came back
// (dimensions, scale, schema) the same way for every adapter.
import type { ModelEndpoint } from "../config/index.js";
import type { ModelErrorContext } from "./errors.js";

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  /** True when the provider reported no usage and the counts are estimates (~4 characters a token). */
  estimated: boolean;
}

export interface ScoreInput {
  prompt: string;
  text: string;
  /** [min, max]; the result lies within it, both ends included. */
  scale: [number, number];
}

export interface JsonInput {
  /** The task id (a derivation task id, a processor name, "answer", ...). */
  task: string;
  prompt: string;
  /** The task's input: sent as is when a string, else as JSON. */
  input: unknown;
  /** JSON Schema 2020-12 the value must satisfy. */
  schema: Record<string, unknown>;
  /** Ids of the records the input shows, in order (a derivation's evidence); the fake script cites them. */
  shown?: readonly string[];
  /** Caps the reply's tokens below the alias's max_output_tokens (a run's remaining token budget). */
  maxOutputTokens?: number;
  /** The requests this call may send, shared with the caller's other calls (an answer's budget). */
  budget?: RequestBudget;
}

/**
 * What one operation may send to providers: every HTTP request (a first attempt, a retry, the
 * next target) takes one from `left` and is counted in `sent`, so a caller's usage is what the
 * providers received. A retry is sent only while one is left.
 */
export interface RequestBudget {
  left: number;
  sent: number;
  /** Once aborted (a deadline), the request in flight is dropped and nothing more is sent. */
  signal?: AbortSignal;
}

export interface JsonResult {
  value: unknown;
  usage: Usage;
}

export interface RerankInput {
  query: string;
  /** The texts to judge, in the order the search ranked them. */
  documents: string[];
}

export interface RerankResult {
  /** Relevance of each document to the query, in [0, 1], in the documents' order. */
  relevance: number[];
  /** The provider:model target that judged. */
  target: string;
}

export interface Models {
  /** One vector per text, each with exactly the embedding alias's dimensions. */
  embed(alias: string, texts: string[]): Promise<number[][]>;
  /** A number within input.scale, from a model alias. */
  score(alias: string, input: ScoreInput): Promise<number>;
  /** A JSON value that satisfies input.schema, from a model alias. */
  json(alias: string, input: JsonInput): Promise<JsonResult>;
  /** The relevance of each document to the query, from a model alias (search rerank). */
  rerank(alias: string, input: RerankInput): Promise<RerankResult>;
}

export interface CreateModelsOptions {
  /**
   * MODEL_ENDPOINTS: checked before every call, so that a catalog published before the list
   * changed sends nothing where it no longer may. Required: there is no permissive default.
   */
  endpoints: readonly ModelEndpoint[];
  /** Where api_key_env variables are read (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Where the local adapter keeps its word-vector cache (default node_modules/.cache/engram). */
  wordVectorsCache?: string;
  /** Outputs of the fake provider's JSON tasks, by task id or `sha256:<hex of the prompt>`. */
  fakeScript?: Record<string, unknown>;
  /** Per-request timeout of the openai adapter (default 60 s). */
  timeoutMs?: number;
  /** Retries of a transient failure per target (default 2; tests lower it); each is a request. */
  maxRetries?: number;
  /** Waits before a retry when the provider names none (default 500 ms, doubled per retry). */
  retryBaseMs?: number;
  /**
   * The server's secrets (METRICS_TOKEN, the database password, ...): with the values of the
   * MODEL_ENDPOINTS variables, replaced by [redacted] in any text a provider sends back.
   */
  secrets?: readonly string[];
  /** Told of every request sent to a provider as it ends (metrics). */
  onCall?: (call: ModelCall) => void;
}

/** One request to a provider as it ended: failed, or answered with usage where known. */
export interface ModelCall {
  /** Where it was sent, as a bounded label: a MODEL_ENDPOINTS URL, `fake`, `local` or `other`. */
  endpoint: string;
  operation: "embed" | "score" | "json" | "rerank";
  /** `retry` when the same target was asked again after a transient failure. */
  attempt: "first" | "retry";
  ok: boolean;
  /** Only JSON tasks report usage (the provider's counts, or estimates). */
  usage?: Usage;
}

/** One call as an adapter sees it: the target already resolved to a provider and a model. */
export interface Call {
  context: ModelErrorContext;
  model: string;
  /** Aborts the request in flight (the caller's deadline passed). */
  signal?: AbortSignal;
  /** The model alias's params.max_output_tokens, if any. */
  maxOutputTokens?: number;
}

export interface Adapter {
  embed(call: Call & { dimensions: number }, texts: string[]): Promise<number[][]>;
  /** The raw number the model gave; the router checks it against the scale. */
  score(call: Call, input: ScoreInput): Promise<number>;
  /** The parsed value; the router validates it against the schema. */
  json(call: Call, input: JsonInput): Promise<JsonResult>;
  /** One raw relevance per document; the router checks count and range. */
  rerank(call: Call, input: RerankInput): Promise<number[]>;
}
