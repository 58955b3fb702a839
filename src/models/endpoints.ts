// Model endpoints as deployment policy (docs/operations.md, "Model endpoints"): a workspace's
// catalog says where its providers send requests and which environment variable they send as
// the key, but only the operator's MODEL_ENDPOINTS decides which URL may receive which secret.
// The same rule refuses a catalog at publish and a provider at call time.
import type { ModelsConf, ProviderDef } from "../catalog/index.js";
import { endpointUrl, type ModelEndpoint } from "../config/index.js";

/** The openai package's own default endpoint, where a provider without base_url sends. */
export const OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1";

/** Why a provider may not be used: the field at fault and what the operator allows instead. */
export interface EndpointRefusal {
  field: "base_url" | "api_key_env";
  reason: string;
}

/** The URL a provider sends to, as MODEL_ENDPOINTS compares it. */
export function providerUrl(provider: ProviderDef): string {
  return endpointUrl(provider.base_url ?? OPENAI_DEFAULT_BASE_URL);
}

/** Null when the provider may be used; fake providers call nothing and are always allowed. */
export function endpointRefusal(
  provider: ProviderDef,
  endpoints: readonly ModelEndpoint[],
): EndpointRefusal | null {
  if (provider.adapter === "fake") return null;
  const url = providerUrl(provider);
  const endpoint = endpoints.find((entry) => entry.url === url);
  if (!endpoint) {
    return {
      field: "base_url",
      reason:
        endpoints.length === 0
          ? `${url} is not an allowed model endpoint: the server's MODEL_ENDPOINTS is unset, so only fake providers may be used`
          : `${url} is not an allowed model endpoint: the server's MODEL_ENDPOINTS does not list it`,
    };
  }
  if (endpoint.variable === provider.api_key_env) return null;
  const named = provider.api_key_env === null ? "naming none" : `not ${provider.api_key_env}`;
  return {
    field: "api_key_env",
    reason:
      endpoint.variable === null
        ? `the server's MODEL_ENDPOINTS pairs ${url} with no variable, so no api_key_env may be sent there`
        : `the server's MODEL_ENDPOINTS pairs ${url} with ${endpoint.variable} (${named}); only that variable may be sent there`,
  };
}

/**
 * The bounded label a model call is counted under (metrics): the endpoint its alias's first
 * target sends to when MODEL_ENDPOINTS lists it, `fake`, or `other`; never a name a catalog chose.
 */
export function endpointLabel(conf: ModelsConf, alias: string, endpoints: readonly ModelEndpoint[]): string {
  const def = Object.hasOwn(conf.aliases, alias) ? conf.aliases[alias] : undefined;
  const providerName =
    def === undefined ? undefined : def.kind === "embedding" ? def.provider : def.targets[0]?.split(":")[0];
  const provider =
    providerName !== undefined && Object.hasOwn(conf.providers, providerName)
      ? conf.providers[providerName]
      : undefined;
  if (provider === undefined) return "other";
  if (provider.adapter === "fake") return "fake";
  const url = providerUrl(provider);
  return endpoints.some((entry) => entry.url === url) ? url : "other";
}
