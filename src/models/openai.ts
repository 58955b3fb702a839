// The `openai` adapter: any OpenAI-compatible endpoint (OpenAI, Ollama, vLLM, LM Studio,
// llama.cpp server) through the official `openai` package.
//
// Failure rule: anything that prevents a reply (connection, timeout, any HTTP error status,
// a redirect, a missing api key variable) is a ModelTransportError; a reply that cannot be used
// is a ModelOutputError. The provider's json_capability is used as configured: a provider error
// never makes us retry with a weaker response_format (docs/catalog.md, "conf/models.yaml": no automatic downgrade).
//
// One adapter call is one HTTP request (docs/operations.md, "Model endpoints"): the SDK's own
// retries are off, so that the router retries, counts and budgets every request, and no
// redirect is followed, so that a request goes only to the URL MODEL_ENDPOINTS allowed. Text the
// provider sent back passes through the router's redactor before any error is built from it.
import OpenAI, { APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import type { ChatCompletionCreateParamsNonStreaming } from "openai/resources/chat/completions";
import type { ProviderDef } from "../catalog/index.js";
import type { Redact } from "../platform/redact.js";
import { OPENAI_DEFAULT_BASE_URL } from "./endpoints.js";
import { ModelOutputError, ModelTransportError } from "./errors.js";
import { estimateTokens, firstJsonObject, inputText, parseScoreReply } from "./parse.js";
import type { Adapter, Call, JsonInput, JsonResult, RerankInput, ScoreInput } from "./types.js";

/** A placeholder key for local servers (Ollama, llama.cpp) that need none but an SDK that wants one. */
const UNUSED_KEY = "unused";

export interface OpenAIAdapterOptions {
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  redact: Redact;
}

type ChatBody = ChatCompletionCreateParamsNonStreaming;

const RERANK_PROMPT =
  "You judge search results. For each numbered document, give its relevance to the query as a number from 0 (unrelated) to 1 (answers it exactly). Reply with scores in the documents' order, one per document.";

/** How much of a provider's error message reaches a client (docs/operations.md, "Model endpoints"). */
const PROVIDER_MESSAGE_CHARS = 200;

/** Statuses worth asking again (as the openai package judges them): the provider may recover. */
function transientStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** How long the provider asked us to wait: retry-after-ms, else Retry-After (seconds or a date). */
function retryAfterMs(headers: Headers | undefined): number | undefined {
  const ms = Number.parseFloat(headers?.get("retry-after-ms") ?? "");
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers?.get("retry-after");
  if (!value) return undefined;
  const seconds = Number(value);
  if (value.trim() !== "" && Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/**
 * A provider's HTTP error as its status and the start of its JSON `error.message`, never the raw
 * body: an endpoint's reply may hold anything (an internal service's page, a stack trace).
 */
function providerFailure(error: APIError, redact: Redact): string {
  if (error.status === undefined) return "could not reach the provider";
  if (error.status >= 300 && error.status < 400) {
    return `the provider answered ${error.status}, a redirect, which is not followed`;
  }
  const message = (error.error as { message?: unknown } | undefined)?.message;
  const said =
    typeof message === "string" && message.trim() !== ""
      ? `: ${redact(message).slice(0, PROVIDER_MESSAGE_CHARS)}`
      : "";
  return `the provider answered ${error.status}${said}`;
}

/** The SDK's fetch, refusing redirects: a 3xx comes back as the provider's answer. */
const fetchWithoutRedirects: typeof fetch = (input, init) => fetch(input, { ...init, redirect: "manual" });

/** A json_schema response_format name: ^[a-zA-Z0-9_-]{1,64}$. */
function schemaName(task: string): string {
  return task.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64) || "output";
}

export class OpenAIAdapter implements Adapter {
  private client: OpenAI | null = null;

  constructor(
    private readonly providerName: string,
    private readonly provider: ProviderDef,
    private readonly options: OpenAIAdapterOptions,
  ) {}

  private clientFor(call: Call): OpenAI {
    if (this.client) return this.client;
    let apiKey = UNUSED_KEY;
    const keyEnv = this.provider.api_key_env;
    if (keyEnv !== null) {
      const value = this.options.env[keyEnv];
      if (!value) {
        // Without the variable's name: a client must not learn which variables the server has.
        throw new ModelTransportError(
          call.context,
          `provider ${this.providerName}: the key variable its api_key_env names is not set on this server`,
          { sent: false },
        );
      }
      apiKey = value;
    }
    this.client = new OpenAI({
      apiKey,
      baseURL: this.provider.base_url ?? OPENAI_DEFAULT_BASE_URL,
      // Explicit nulls so OPENAI_ORG_ID / OPENAI_PROJECT_ID in the environment are not sent.
      organization: null,
      project: null,
      timeout: this.options.timeoutMs,
      maxRetries: 0,
      fetch: fetchWithoutRedirects,
      // The SDK's own log lines would quote provider replies past the redactor.
      logLevel: "off",
    });
    return this.client;
  }

  /**
   * Runs one request; SDK errors become transport errors, anything else an output error. No
   * error keeps the SDK's as its cause: that holds the provider's body and headers unredacted.
   */
  private async send<T>(
    call: Call,
    request: (client: OpenAI, options: { signal?: AbortSignal }) => Promise<T>,
  ): Promise<T> {
    const client = this.clientFor(call);
    try {
      return await request(client, call.signal ? { signal: call.signal } : {});
    } catch (error) {
      if (error instanceof APIUserAbortError) {
        throw new ModelTransportError(call.context, "abandoned at the caller's deadline");
      }
      if (error instanceof APIConnectionTimeoutError) {
        throw new ModelTransportError(call.context, `timed out after ${this.options.timeoutMs} ms`, {
          transient: true,
        });
      }
      if (error instanceof APIError) {
        const after = retryAfterMs(error.headers);
        throw new ModelTransportError(call.context, providerFailure(error, this.options.redact), {
          ...(error.status === undefined ? {} : { status: error.status }),
          transient: error.status === undefined || transientStatus(error.status),
          ...(after === undefined ? {} : { retryAfterMs: after }),
        });
      }
      // The SDK parses a JSON content type itself: a broken body surfaces here as a SyntaxError,
      // whose message quotes the body, so it is not passed on.
      throw new ModelOutputError(call.context, "malformed reply (not the JSON the API returns)");
    }
  }

  async embed(call: Call & { dimensions: number }, texts: string[]): Promise<number[][]> {
    if (texts.length === 0) return [];
    // `dimensions` only for models that can shorten their vectors (OpenAI text-embedding-3-*);
    // other servers reject or ignore it. The router checks the dimensions that came back.
    const shortens = /^text-embedding-3/.test(call.model);
    const reply = await this.send(call, (client, options) =>
      client.embeddings.create(
        {
          model: call.model,
          input: texts,
          // Floats, not the SDK's base64 default: not every compatible server speaks base64.
          encoding_format: "float",
          ...(shortens ? { dimensions: call.dimensions } : {}),
        },
        options,
      ),
    );
    const data = (reply as { data?: unknown } | null)?.data;
    if (!Array.isArray(data) || data.length !== texts.length) {
      throw new ModelOutputError(call.context, `expected ${texts.length} embeddings in the reply`);
    }
    const vectors: number[][] = new Array(texts.length);
    data.forEach((item: { index?: unknown; embedding?: unknown }, position) => {
      const index = typeof item?.index === "number" ? item.index : position;
      if (!Array.isArray(item?.embedding) || index < 0 || index >= texts.length || vectors[index]) {
        throw new ModelOutputError(call.context, "malformed embeddings reply");
      }
      vectors[index] = item.embedding as number[];
    });
    return vectors;
  }

  private tokenLimit(call: Call): Partial<ChatBody> {
    if (call.maxOutputTokens === undefined) return {};
    return { [this.provider.token_limit_field]: call.maxOutputTokens };
  }

  private async chat(call: Call, body: Omit<ChatBody, "model">) {
    const reply = await this.send(call, (client, options) =>
      client.chat.completions.create({ model: call.model, ...this.tokenLimit(call), ...body }, options),
    );
    const message = (reply as { choices?: { message?: { content?: unknown; refusal?: unknown } }[] } | null)
      ?.choices?.[0]?.message;
    if (typeof message?.refusal === "string" && message.refusal !== "") {
      throw new ModelOutputError(call.context, `the model refused: ${this.options.redact(message.refusal)}`);
    }
    if (typeof message?.content !== "string") {
      throw new ModelOutputError(call.context, "the reply has no message content");
    }
    const usage = (reply as { usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } }).usage;
    return { content: message.content, usage };
  }

  async score(call: Call, input: ScoreInput): Promise<number> {
    const [min, max] = input.scale;
    const { content } = await this.chat(call, {
      messages: [
        {
          role: "system",
          content: `${input.prompt}\n\nReply with only a number from ${min} to ${max}, nothing else.`,
        },
        { role: "user", content: input.text },
      ],
    });
    const value = parseScoreReply(content);
    if (value === null) {
      throw new ModelOutputError(
        call.context,
        `expected a number, got ${JSON.stringify(this.options.redact(content).slice(0, 200))}`,
      );
    }
    return value;
  }

  /** One JSON call judges every document; the router checks the count and the range. */
  async rerank(call: Call, input: RerankInput): Promise<number[]> {
    const { value } = await this.json(call, {
      task: "rerank",
      prompt: RERANK_PROMPT,
      input: { query: input.query, documents: input.documents.map((text, index) => ({ index, text })) },
      schema: {
        type: "object",
        // No minimum/maximum: strict json_schema modes reject them; the router checks the range.
        properties: { scores: { type: "array", items: { type: "number" } } },
        required: ["scores"],
        additionalProperties: false,
      },
    });
    return (value as { scores?: number[] } | null)?.scores ?? [];
  }

  async json(call: Call, input: JsonInput): Promise<JsonResult> {
    const capability = this.provider.json_capability;
    const schemaText = `\n\nReply with one JSON object that satisfies this JSON Schema, and nothing else:\n${JSON.stringify(input.schema)}`;
    const system = capability === "json_schema" ? input.prompt : `${input.prompt}${schemaText}`;
    const user = inputText(input.input);
    const responseFormat: Pick<ChatBody, "response_format"> =
      capability === "json_schema"
        ? {
            response_format: {
              type: "json_schema",
              json_schema: {
                name: schemaName(input.task),
                schema: input.schema,
                strict: this.provider.json_schema_strict,
              },
            },
          }
        : capability === "json_object"
          ? { response_format: { type: "json_object" } }
          : {};
    const { content, usage } = await this.chat(call, {
      messages: [
        { role: "system", content: system },
        { role: "user", content: user },
      ],
      ...responseFormat,
    });
    let value: unknown;
    if (capability === "none") {
      value = firstJsonObject(content);
      if (value === undefined) throw new ModelOutputError(call.context, "the reply holds no JSON object");
    } else {
      try {
        value = JSON.parse(content);
      } catch {
        throw new ModelOutputError(
          call.context,
          `the reply is not JSON: ${JSON.stringify(this.options.redact(content).slice(0, 200))}`,
        );
      }
    }
    const reported = typeof usage?.prompt_tokens === "number" && typeof usage?.completion_tokens === "number";
    return {
      value,
      usage: reported
        ? {
            prompt_tokens: usage.prompt_tokens as number,
            completion_tokens: usage.completion_tokens as number,
            estimated: false,
          }
        : {
            prompt_tokens: estimateTokens(system) + estimateTokens(user),
            completion_tokens: estimateTokens(content),
            estimated: true,
          },
    };
  }
}
