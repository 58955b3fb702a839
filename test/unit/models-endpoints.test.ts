import { describe, expect, it } from "vitest";
import type { ProviderDef } from "../../src/catalog/index.js";
import { endpointRefusal, providerLabel } from "../../src/models/endpoints.js";

function openai(base_url: string | null, api_key_env: string | null = null): ProviderDef {
  return {
    adapter: "openai",
    base_url,
    api_key_env,
    token_limit_field: "max_completion_tokens",
    json_capability: "json_schema",
    json_schema_strict: true,
  };
}

const endpoints = [
  { url: "https://api.openai.com/v1", variable: "OPENAI_API_KEY" },
  { url: "http://127.0.0.1:11434/v1", variable: null },
];

describe("endpointRefusal", () => {
  it("allows fake and local providers whatever the list (they send nothing)", () => {
    expect(endpointRefusal({ ...openai(null), adapter: "fake" }, [])).toBeNull();
    expect(endpointRefusal({ ...openai(null), adapter: "local" }, [])).toBeNull();
  });

  it("compares a provider without base_url as the openai default endpoint", () => {
    expect(endpointRefusal(openai(null, "OPENAI_API_KEY"), endpoints)).toBeNull();
    expect(endpointRefusal(openai(null, "DATABASE_URL"), endpoints)?.field).toBe("api_key_env");
  });

  it("allows a listed URL with one trailing / and its exact pairing only", () => {
    expect(endpointRefusal(openai("http://127.0.0.1:11434/v1/"), endpoints)).toBeNull();
    expect(endpointRefusal(openai("http://127.0.0.1:11434/v1", "METRICS_TOKEN"), endpoints)).toMatchObject({
      field: "api_key_env",
      reason: expect.stringMatching(/does not pair http:\/\/127.0.0.1:11434\/v1 with METRICS_TOKEN/),
    });
    expect(endpointRefusal(openai("https://api.openai.com/v1"), endpoints)?.field).toBe("api_key_env");
    expect(endpointRefusal(openai("http://127.0.0.1:19999/v1"), endpoints)?.field).toBe("base_url");
    expect(endpointRefusal(openai("https://api.openai.com/v1//", "OPENAI_API_KEY"), endpoints)?.field).toBe(
      "base_url",
    );
  });
});

describe("a refusal names what the catalog wrote, never the operator's variable", () => {
  it("says the URL and the catalog's variable, not the one MODEL_ENDPOINTS pairs", () => {
    for (const provider of [openai(null, "DATABASE_URL"), openai(null)]) {
      const refusal = endpointRefusal(provider, endpoints);
      expect(refusal?.field).toBe("api_key_env");
      expect(refusal?.reason).toMatch(/MODEL_ENDPOINTS/);
      expect(refusal?.reason).toMatch(/https:\/\/api\.openai\.com\/v1/);
      expect(refusal?.reason).not.toMatch(/OPENAI_API_KEY/);
    }
  });
});

describe("providerLabel: a bounded metrics label, never a catalog's own names", () => {
  it("labels by the endpoint the provider sends to: listed URL, fake, local or other", () => {
    expect(providerLabel({ ...openai(null), adapter: "fake" }, endpoints)).toBe("fake");
    expect(providerLabel({ ...openai(null), adapter: "local" }, endpoints)).toBe("local");
    expect(providerLabel(openai("http://127.0.0.1:11434/v1/"), endpoints)).toBe("http://127.0.0.1:11434/v1");
    expect(providerLabel(openai("http://127.0.0.1:19999/v1"), endpoints)).toBe("other");
  });
});
