// Model endpoints as deployment policy (docs/operations.md, "Model endpoints"): a workspace's
// catalog says where its providers send requests and which environment variable they send as
// the key, but only the operator's MODEL_ENDPOINTS decides which URL may receive which secret.
// The same rule refuses a catalog at publish and a provider at call time.
import type { ProviderDef } from "../catalog/index.js";
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

/** Null when the provider may be used; fake and local providers send nothing and are always allowed. */
export function endpointRefusal(
  provider: ProviderDef,
  endpoints: readonly ModelEndpoint[],
): EndpointRefusal | null {
  if (provider.adapter !== "openai") return null;
  const url = providerUrl(provider);
  const endpoint = endpoints.find((entry) => entry.url === url);
  if (!endpoint) {
    return {
      field: "base_url",
      reason:
        endpoints.length === 0
          ? `${url} is not an allowed model endpoint: the server's MODEL_ENDPOINTS is unset, so only fake and local providers may be used`
          : `${url} is not an allowed model endpoint: the server's MODEL_ENDPOINTS does not list it`,
    };
  }
  if (endpoint.variable === provider.api_key_env) return null;
  // Names only what the catalog wrote: the variable the operator pairs with the URL is theirs.
  return {
    field: "api_key_env",
    reason:
      provider.api_key_env === null
        ? `the server's MODEL_ENDPOINTS pairs ${url} with a key variable, and this provider names none`
        : `the server's MODEL_ENDPOINTS does not pair ${url} with ${provider.api_key_env}, so that variable may not be sent there`,
  };
}

/**
 * The bounded label a request to this provider is counted under (metrics): its URL when
 * MODEL_ENDPOINTS lists it, `fake`, `local`, or `other`; never a name a catalog chose.
 */
export function providerLabel(provider: ProviderDef, endpoints: readonly ModelEndpoint[]): string {
  if (provider.adapter !== "openai") return provider.adapter;
  const url = providerUrl(provider);
  return endpoints.some((entry) => entry.url === url) ? url : "other";
}
