// Resolves an alias of conf/models.yaml to its provider adapter(s), tries a model alias's
// targets in order on transport failure only, and checks every reply the same way whatever the
// adapter: vector dimensions, score scale, JSON schema.
import type { ValidateFunction } from "ajv/dist/2020.js";
import type { EmbeddingAlias, ModelAlias, ModelsConf } from "../catalog/index.js";
import { ajv } from "../platform/schema.js";
import { endpointLabel, endpointRefusal } from "./endpoints.js";
import { type ModelErrorContext, ModelOutputError, ModelTransportError } from "./errors.js";
import { FakeAdapter } from "./fake.js";
import { observedModels } from "./observed.js";
import { OpenAIAdapter } from "./openai.js";
import type {
  Adapter,
  Call,
  CreateModelsOptions,
  JsonInput,
  JsonResult,
  Models,
  RerankInput,
  RerankResult,
  ScoreInput,
} from "./types.js";

/**
 * 60 s per request: long enough for a slow local model to write a derivation's JSON, short
 * enough that a hung provider fails the job well inside its lease.
 */
export const DEFAULT_TIMEOUT_MS = 60_000;
/** The openai client's own retries (429, 5xx, connection errors) before a target counts as failed. */
export const DEFAULT_MAX_RETRIES = 2;

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

class Router implements Models {
  private readonly adapters = new Map<string, Adapter>();
  private readonly env: NodeJS.ProcessEnv;
  private readonly timeoutMs: number;
  private readonly maxRetries: number;

  constructor(
    private readonly conf: ModelsConf,
    private readonly options: CreateModelsOptions,
  ) {
    this.env = options.env ?? process.env;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  }

  /** The provider's adapter, once MODEL_ENDPOINTS allows it (a refusal is a provider failure). */
  private adapter(name: string, context: ModelErrorContext): Adapter {
    let adapter = this.adapters.get(name);
    if (adapter) return adapter;
    const provider = Object.hasOwn(this.conf.providers, name) ? this.conf.providers[name] : undefined;
    if (!provider) throw new Error(`conf/models.yaml has no provider "${name}"`);
    const refusal = endpointRefusal(provider, this.options.endpoints);
    if (refusal) throw new ModelTransportError(context, `provider ${name}: ${refusal.reason}`);
    adapter =
      provider.adapter === "fake"
        ? new FakeAdapter(this.options.fakeScript ?? {})
        : new OpenAIAdapter(name, provider, {
            env: this.env,
            timeoutMs: this.timeoutMs,
            maxRetries: this.maxRetries,
          });
    this.adapters.set(name, adapter);
    return adapter;
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

  /** Tries each target in order; only a ModelTransportError moves on to the next one. */
  private async withTargets<T>(
    name: string,
    run: (adapter: Adapter, call: Call) => Promise<T>,
    maxOutputTokens?: number,
  ): Promise<T> {
    const alias = this.alias(name, "model");
    const attempts: { target: string; message: string }[] = [];
    let last: ModelTransportError | undefined;
    for (const target of alias.targets) {
      const { provider, model } = splitTarget(target);
      const limit = Math.min(
        alias.params.max_output_tokens ?? Number.POSITIVE_INFINITY,
        maxOutputTokens ?? Number.POSITIVE_INFINITY,
      );
      const call: Call = {
        context: { alias: name, target },
        model,
        ...(Number.isFinite(limit) ? { maxOutputTokens: limit } : {}),
      };
      try {
        return await run(this.adapter(provider, call.context), call);
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
    const vectors = await this.adapter(alias.provider, call.context).embed(call, texts);
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
    return this.withTargets(name, async (adapter, call) => {
      const value = await adapter.score(call, input);
      const [min, max] = input.scale;
      if (!Number.isFinite(value) || value < min || value > max) {
        throw new ModelOutputError(call.context, `score ${value} is outside the scale [${min}, ${max}]`);
      }
      return value;
    });
  }

  json(name: string, input: JsonInput): Promise<JsonResult> {
    const validate = validatorFor(input.schema);
    return this.withTargets(
      name,
      async (adapter, call) => {
        const result = await adapter.json(call, input);
        if (!validate(result.value)) {
          throw new ModelOutputError(
            call.context,
            `output of task "${input.task}" does not satisfy its schema: ${ajv.errorsText(validate.errors)}`,
          );
        }
        return result;
      },
      input.maxOutputTokens,
    );
  }

  rerank(name: string, input: RerankInput): Promise<RerankResult> {
    return this.withTargets(name, async (adapter, call) => ({
      relevance: checkRelevance(call, await adapter.rerank(call, input), input.documents.length),
      target: call.context.target,
    }));
  }
}

/** Relevance values checked: one per document, each a finite number within [0, 1]. */
function checkRelevance(call: Call, values: unknown, documents: number): number[] {
  if (!Array.isArray(values) || values.length !== documents) {
    const got = Array.isArray(values) ? values.length : typeof values;
    throw new ModelOutputError(call.context, `expected ${documents} relevance values, got ${got}`);
  }
  for (const value of values) {
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || value > 1) {
      throw new ModelOutputError(call.context, `relevance ${value} is not a number within [0, 1]`);
    }
  }
  return values as number[];
}

/** The model layer over one catalog's conf/models.yaml. Adapters and clients are created lazily. */
export function createModels(conf: ModelsConf, options: CreateModelsOptions): Models {
  const router = new Router(conf, options);
  const onCall = options.onCall;
  if (!onCall) return router;
  return observedModels(router, (alias) => endpointLabel(conf, alias, options.endpoints), onCall);
}
