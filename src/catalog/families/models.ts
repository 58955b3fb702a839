import {
  type Def,
  type EmbeddingAlias,
  type ModelAlias,
  type ModelsConf,
  NAME,
  NAME_HINT,
  type ProviderDef,
} from "../definition/index.js";

const ENV_NAME = /^[A-Z_][A-Z0-9_]*$/;
const TARGET = /^([a-z][a-z0-9_-]*):(.+)$/;
const SPACE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
/**
 * The one model of the `local` adapter (docs/catalog.md, "The local embedder"): 100-dimensional
 * word vectors. It embeds and does nothing else.
 */
export const LOCAL_MODEL = "wink-sg-100d";
export const LOCAL_DIMENSIONS = 100;
// Largest vector pgvector indexes with HNSW is 2000; our real[] layout has no limit, but a
// model with more dimensions than this is a mistake in practice.
const MAX_DIMENSIONS = 16_000;

function parseProvider(src: Def): ProviderDef {
  src.fields(
    ["adapter", "base_url", "api_key_env", "token_limit_field", "json_capability", "json_schema_strict"],
    ["adapter"],
  );
  const baseUrl = src.at("base_url").maybe();
  if (baseUrl) {
    const text = baseUrl.string();
    if (!URL.canParse(text) || !/^https?:$/.test(new URL(text).protocol))
      baseUrl.fail("must be an http(s) URL");
  }
  return {
    adapter: src.at("adapter").oneOf(["openai", "fake", "local"] as const),
    base_url: (baseUrl?.value as string | undefined) ?? null,
    // Secrets live in the process environment; the catalog only names the variable.
    api_key_env:
      src
        .at("api_key_env")
        .maybe()
        ?.string({ pattern: ENV_NAME, patternHint: "an environment variable name" }) ?? null,
    token_limit_field:
      src
        .at("token_limit_field")
        .maybe()
        ?.oneOf(["max_completion_tokens", "max_tokens"] as const) ?? "max_completion_tokens",
    json_capability:
      src
        .at("json_capability")
        .maybe()
        ?.oneOf(["json_schema", "json_object", "none"] as const) ?? "json_schema",
    json_schema_strict: src.at("json_schema_strict").maybe()?.boolean() ?? true,
  };
}

function parseAlias(src: Def, providers: Record<string, ProviderDef>): ModelAlias | EmbeddingAlias {
  // An alias without targets is an embedding alias; its own fields are then all required.
  const isEmbedding = src.value !== null && typeof src.value === "object" && !("targets" in src.value);
  if (isEmbedding) {
    src.fields(["provider", "model", "dimensions", "space"], ["provider", "model", "dimensions", "space"]);
    const provider = src.at("provider").string();
    if (!Object.hasOwn(providers, provider))
      src.at("provider").fail(`no provider "${provider}"`, "definition_unresolved");
    const model = src.at("model").string();
    const dimensions = src.at("dimensions").integer({ min: 1, max: MAX_DIMENSIONS });
    if (providers[provider]?.adapter === "local") {
      if (model !== LOCAL_MODEL) src.at("model").fail(`the local adapter has one model, "${LOCAL_MODEL}"`);
      if (dimensions !== LOCAL_DIMENSIONS)
        src.at("dimensions").fail(`the local adapter's ${LOCAL_MODEL} has ${LOCAL_DIMENSIONS} dimensions`);
    }
    return {
      kind: "embedding",
      provider,
      model,
      dimensions,
      space: src.at("space").string({ pattern: SPACE, patternHint: "an embedding space identifier" }),
    };
  }
  src.fields(["targets", "params", "context_tokens"], ["targets"]);
  const targets = src.at("targets").strings({ min: 1 });
  targets.forEach((target, i) => {
    const provider = TARGET.exec(target)?.[1];
    if (provider === undefined) src.at("targets").at(i).fail(`"${target}" is not provider:model`);
    else if (!providers[provider])
      src.at("targets").at(i).fail(`no provider "${provider}"`, "definition_unresolved");
    else if (providers[provider].adapter === "local")
      src.at("targets").at(i).fail(`provider "${provider}" is local word vectors: it only embeds`);
  });
  const params = src.at("params").maybe();
  params?.fields(["max_output_tokens"]);
  const maxOutput = params?.at("max_output_tokens").maybe()?.integer({ min: 1 });
  return {
    kind: "model",
    targets,
    params: maxOutput === undefined ? {} : { max_output_tokens: maxOutput },
    context_tokens: src.at("context_tokens").maybe()?.integer({ min: 1 }) ?? null,
  };
}

/** conf/models.yaml: providers, aliases (at least one embedding alias) and defaults. */
export function parseModels(src: Def): ModelsConf {
  src.fields(["providers", "aliases", "defaults"], ["providers", "aliases"]);
  const providers: Record<string, ProviderDef> = {};
  for (const [name, provider] of src.at("providers").entries()) {
    if (!/^[a-z][a-z0-9_-]*$/.test(name)) provider.fail(`provider name "${name}" is not a lowercase name`);
    providers[name] = parseProvider(provider);
  }
  const aliases: Record<string, ModelAlias | EmbeddingAlias> = {};
  for (const [name, alias] of src.at("aliases").entries()) {
    if (!NAME.test(name)) alias.fail(`alias name "${name}" is not ${NAME_HINT}`);
    aliases[name] = parseAlias(alias, providers);
  }
  if (!Object.values(aliases).some((alias) => alias.kind === "embedding")) {
    src.at("aliases").fail("at least one embedding alias {provider, model, dimensions, space} is required");
  }
  const defaults: ModelsConf["defaults"] = {};
  const defaultsSrc = src.at("defaults").maybe();
  defaultsSrc?.fields(["derivation", "fold", "answer"]);
  for (const use of ["derivation", "fold", "answer"] as const) {
    const at = defaultsSrc?.at(use).maybe();
    if (!at) continue;
    const name = at.string();
    const alias = Object.hasOwn(aliases, name) ? aliases[name] : undefined;
    if (!alias) return at.fail(`no alias "${name}"`, "definition_unresolved");
    if (alias.kind !== "model") at.fail(`alias "${name}" is an embedding alias; ${use} needs a model alias`);
    defaults[use] = name;
  }
  return { providers, aliases, defaults };
}
