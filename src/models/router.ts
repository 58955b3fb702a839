// Resolves an alias of conf/models.yaml to its provider adapter(s), tries a model alias's
// targets in order on transport failure only, and checks every reply the same way whatever the
// adapter: vector dimensions, score scale, JSON schema.
//
// Every request a provider receives is sent from here (docs/operations.md, "Model endpoints"):
// a transient failure (timeout, dropped connection, 408, 409, 429, 5xx) is asked again on the
// same target up to maxRetries times, after the wait the provider asked for or a doubling
// backoff; each attempt is reported (metrics) and, when the caller gave one, taken from its
// request budget. Text a provider sends back is redacted of the server's secrets.
import { setTimeout as sleep } from "node:timers/promises";
import type { ValidateFunction } from "ajv/dist/2020.js";
import type { EmbeddingAlias, ModelAlias, ModelsConf, ProviderDef } from "../catalog/index.js";
import { type Redact, redactor, redactValue } from "../platform/redact.js";
import { ajv } from "../platform/schema.js";
import { endpointRefusal, providerLabel } from "./endpoints.js";
import { type ModelErrorContext, ModelOutputError, ModelTransportError } from "./errors.js";
import { FakeAdapter } from "./fake.js";
import { LocalAdapter } from "./local/adapter.js";
import { OpenAIAdapter } from "./openai.js";
import type {
  Adapter,
  Call,
  CreateModelsOptions,
  JsonInput,
  JsonResult,
  ModelCall,
  Models,
  RequestBudget,
  RerankInput,
  RerankResult,
  ScoreInput,
  Usage,
} from "./types.js";

/**
 * 60 s per request: long enough for a slow local model to write a derivation's JSON, short
 * enough that a hung provider fails the job well inside its lease.
 */
export const DEFAULT_TIMEOUT_MS = 60_000;
/** Retries of a transient failure on one target before it counts as failed. */
export const DEFAULT_MAX_RETRIES = 2;
/** The first backoff when the provider names no wait; doubled per retry, at most MAX_BACKOFF_MS. */
const DEFAULT_RETRY_BASE_MS = 500;
const MAX_BACKOFF_MS = 8_000;
/** A provider asking for a longer wait is not waited on: the target fails (and the next is tried). */
const MAX_RETRY_AFTER_MS = 60_000;

// Output schemas come from catalogs that are reloaded as new objects; compiled once per object
// and removed from Ajv's registry again so a schema with an $id can be compiled repeatedly.
const validators = new WeakMap<object, ValidateFunction>();
function validatorFor(schema: Record<string, unknown>): ValidateFunction {
  let validate = validators.get(schema);
  if (!validate) {
    try {
      validate = ajv.compile(schema);
    } finally {
      ajv.removeSchema(schema);
    }
    validators.set(schema, validate);
  }
  return validate;
}

/** "provider:model": the provider is everything before the first colon ("ollama:llama3:8b"). */
function splitTarget(target: string): { provider: string; model: string } {
  const at = target.indexOf(":");
  if (at <= 0) throw new Error(`model target "${target}" is not provider:model`);
  return { provider: target.slice(0, at), model: target.slice(at + 1) };
}

/** One provider as the router uses it: its adapter and the label its requests are counted under. */
interface Provider {
  adapter: Adapter;
  endpoint: string;
}

/** What one attempt loop sends: the operation, the provider, and the caller's budget if any. */
interface Attempts<T> {
  operation: ModelCall["operation"];
  provider: Provider;
  call: Call;
  budget: RequestBudget | undefined;
  send: (adapter: Adapter, call: Call) => Promise<T>;
  usage?: (result: T) => Usage;
}

class Router implements Models {
  private readonly providers = new Map<string, Provider>();
  private readonly env: NodeJS.ProcessEnv;
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  private readonly retryBaseMs: number;
  private readonly redact: Redact;

  constructor(
    private readonly conf: ModelsConf,
    private readonly options: CreateModelsOptions,
  ) {
    this.env = options.env ?? process.env;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
    this.retryBaseMs = options.retryBaseMs ?? DEFAULT_RETRY_BASE_MS;
    // Every value MODEL_ENDPOINTS lets a provider send, with the server's other secrets.
    this.redact = redactor([
      ...options.endpoints.map((endpoint) => (endpoint.variable ? this.env[endpoint.variable] : undefined)),
      ...(options.secrets ?? []),
    ]);
  }

  /** The provider's adapter, once MODEL_ENDPOINTS allows it (a refusal is a provider failure). */
  private provider(name: string, context: ModelErrorContext): Provider {
    const known = this.providers.get(name);
    if (known) return known;
    const def: ProviderDef | undefined = Object.hasOwn(this.conf.providers, name)
      ? this.conf.providers[name]
      : undefined;
    if (!def) throw new Error(`conf/models.yaml has no provider "${name}"`);
    const refusal = endpointRefusal(def, this.options.endpoints);
    if (refusal) throw new ModelTransportError(context, `provider ${name}: ${refusal.reason}`);
    const adapter =
      def.adapter === "fake"
        ? new FakeAdapter(this.options.fakeScript ?? {})
        : def.adapter === "local"
          ? new LocalAdapter(this.options.wordVectorsCache)
          : new OpenAIAdapter(name, def, { env: this.env, timeoutMs: this.timeoutMs, redact: this.redact });
    const provider = { adapter, endpoint: providerLabel(def, this.options.endpoints) };
    this.providers.set(name, provider);
    return provider;
  }

  /**
   * Sends to one provider, asking again after a transient failure while retries (and the
   * budget) allow. Each request is reported as it ends and taken from the budget as it starts.
   */
  private async attempts<T>(run: Attempts<T>): Promise<T> {
    const { budget, provider } = run;
    for (let retry = 0; ; retry++) {
      if (budget) {
        if (budget.signal?.aborted || budget.left <= 0) throw spent(run.call);
        budget.left--;
        budget.sent++;
      }
      const attempt = retry === 0 ? "first" : "retry";
      const report = (ok: boolean, usage?: Usage) =>
        this.options.onCall?.({
          endpoint: provider.endpoint,
          operation: run.operation,
          attempt,
          ok,
          ...(usage ? { usage } : {}),
        });
      let result: T;
      try {
        result = await run.send(provider.adapter, run.call);
      } catch (error) {
        if (error instanceof ModelTransportError && !error.sent) {
          if (budget) {
            budget.left++;
            budget.sent--;
          }
          throw error;
        }
        report(false);
        const wait = this.retryWait(error, retry);
        if (wait === null || (budget && budget.left <= 0)) throw error;
        try {
          await sleep(wait, undefined, budget?.signal ? { signal: budget.signal } : {});
        } catch {
          throw error;
        }
        continue;
      }
      report(true, run.usage?.(result));
      return result;
    }
  }

  /** How long to wait before asking again, or null when this failure is not asked again. */
  private retryWait(error: unknown, retry: number): number | null {
    if (!(error instanceof ModelTransportError) || !error.transient || retry >= this.maxRetries) return null;
    if (error.retryAfterMs !== null)
      return error.retryAfterMs <= MAX_RETRY_AFTER_MS ? error.retryAfterMs : null;
    return Math.min(this.retryBaseMs * 2 ** retry, MAX_BACKOFF_MS) * (0.75 + Math.random() * 0.25);
  }

  // An unknown alias or one of the wrong kind is a catalog or programming error (linking
  // rules out both for a published catalog), not a model failure: a plain Error.
  private alias(name: string, kind: "embedding"): EmbeddingAlias;
  private alias(name: string, kind: "model"): ModelAlias;
  private alias(name: string, kind: "model" | "embedding"): ModelAlias | EmbeddingAlias {
    const alias = Object.hasOwn(this.conf.aliases, name) ? this.conf.aliases[name] : undefined;
    if (!alias) throw new Error(`conf/models.yaml has no alias "${name}"`);
    if (alias.kind !== kind)
      throw new Error(`alias "${name}" is not ${kind === "model" ? "a model" : "an embedding"} alias`);
    return alias;
  }

  /**
   * Tries each target in order; only a ModelTransportError moves on to the next one, and only
   * while the budget has a request left.
   */
  private async withTargets<T>(
    name: string,
    run: Omit<Attempts<T>, "provider" | "call">,
    maxOutputTokens?: number,
  ): Promise<T> {
    const alias = this.alias(name, "model");
    const attempts: { target: string; message: string }[] = [];
    let last: ModelTransportError | undefined;
    for (const target of alias.targets) {
      if (last && run.budget && run.budget.left <= 0) break;
      const { provider, model } = splitTarget(target);
      const limit = Math.min(
        alias.params.max_output_tokens ?? Number.POSITIVE_INFINITY,
        maxOutputTokens ?? Number.POSITIVE_INFINITY,
      );
      const call: Call = {
        context: { alias: name, target },
        model,
        ...(Number.isFinite(limit) ? { maxOutputTokens: limit } : {}),
        ...(run.budget?.signal ? { signal: run.budget.signal } : {}),
      };
      try {
        return await this.attempts({ ...run, provider: this.provider(provider, call.context), call });
      } catch (error) {
        if (!(error instanceof ModelTransportError)) throw error;
        attempts.push({ target, message: error.message });
        last = error;
      }
    }
    if (!last) throw new Error(`alias "${name}" has no targets`);
    last.attempts = attempts;
    throw last;
  }

  async embed(name: string, texts: string[]): Promise<number[][]> {
    const alias = this.alias(name, "embedding");
    const call = {
      context: { alias: name, target: `${alias.provider}:${alias.model}` },
      model: alias.model,
      dimensions: alias.dimensions,
    };
    const vectors = await this.attempts({
      operation: "embed",
      provider: this.provider(alias.provider, call.context),
      call,
      budget: undefined,
      send: (adapter) => adapter.embed(call, texts),
    });
    if (vectors.length !== texts.length) {
      throw new ModelOutputError(call.context, `expected ${texts.length} vectors, got ${vectors.length}`);
    }
    for (const vector of vectors) {
      if (!Array.isArray(vector) || vector.length !== alias.dimensions) {
        const got = Array.isArray(vector) ? vector.length : typeof vector;
        throw new ModelOutputError(
          call.context,
          `expected vectors of ${alias.dimensions} dimensions, got ${got}`,
        );
      }
      if (!vector.every((x) => typeof x === "number" && Number.isFinite(x))) {
        throw new ModelOutputError(call.context, "a vector holds a value that is not a finite number");
      }
    }
    return vectors;
  }

  score(name: string, input: ScoreInput): Promise<number> {
    return this.withTargets(name, {
      operation: "score",
      budget: undefined,
      send: async (adapter, call) => {
        const value = await adapter.score(call, input);
        const [min, max] = input.scale;
        if (!Number.isFinite(value) || value < min || value > max) {
          throw new ModelOutputError(call.context, `score ${value} is outside the scale [${min}, ${max}]`);
        }
        return value;
      },
    });
  }

  json(name: string, input: JsonInput): Promise<JsonResult> {
    const validate = validatorFor(input.schema);
    return this.withTargets(
      name,
      {
        operation: "json",
        budget: input.budget,
        send: async (adapter, call) => {
          const result = await adapter.json(call, input);
          // Provider text reaches records, answers and runs: redacted before it is checked.
          const value = redactValue(result.value, this.redact);
          if (!validate(value)) {
            throw new ModelOutputError(
              call.context,
              `output of task "${input.task}" does not satisfy its schema: ${this.redact(ajv.errorsText(validate.errors))}`,
            );
          }
          return { ...result, value };
        },
        usage: (result) => result.usage,
      },
      input.maxOutputTokens,
    );
  }

  rerank(name: string, input: RerankInput): Promise<RerankResult> {
    return this.withTargets(name, {
      operation: "rerank",
      budget: undefined,
      send: async (adapter, call) => ({
        relevance: checkRelevance(call, await adapter.rerank(call, input), input.documents.length),
        target: call.context.target,
      }),
    });
  }
}

/** The budget ran out before a request could be sent (the caller had asked for more). */
function spent(call: Call): ModelTransportError {
  return new ModelTransportError(call.context, "no request left in this call's budget");
}

/** Relevance values checked: one per document, each a finite number within [0, 1]. */
function checkRelevance(call: Call, values: unknown, documents: number): number[] {
  if (!Array.isArray(values) || values.length !== documents) {
    const got = Array.isArray(values) ? values.length : typeof values;
    throw new ModelOutputError(call.context, `expected ${documents} relevance values, got ${got}`);
  }
  for (const value of values) {
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || value > 1) {
      const shown = typeof value === "number" ? value : typeof value;
      throw new ModelOutputError(call.context, `relevance ${shown} is not a number within [0, 1]`);
    }
  }
  return values as number[];
}

/** The model layer over one catalog's conf/models.yaml. Adapters and clients are created lazily. */
export function createModels(conf: ModelsConf, options: CreateModelsOptions): Models {
  return new Router(conf, options);
}
