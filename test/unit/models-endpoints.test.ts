import { describe, expect, it } from "vitest";
import type { ModelsConf, ProviderDef } from "../../src/catalog/index.js";
import { endpointLabel, endpointRefusal } from "../../src/models/endpoints.js";

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
  it("allows fake providers whatever the list", () => {
    expect(endpointRefusal({ ...openai(null), adapter: "fake" }, [])).toBeNull();
  });

  it("compares a provider without base_url as the openai default endpoint", () => {
    expect(endpointRefusal(openai(null, "OPENAI_API_KEY"), endpoints)).toBeNull();
    expect(endpointRefusal(openai(null, "DATABASE_URL"), endpoints)?.field).toBe("api_key_env");
  });

  it("allows a listed URL with one trailing / and its exact pairing only", () => {
    expect(endpointRefusal(openai("http://127.0.0.1:11434/v1/"), endpoints)).toBeNull();
    expect(endpointRefusal(openai("http://127.0.0.1:11434/v1", "METRICS_TOKEN"), endpoints)).toMatchObject({
      field: "api_key_env",
      reason: expect.stringMatching(/pairs http:\/\/127.0.0.1:11434\/v1 with no variable/),
    });
    expect(endpointRefusal(openai("https://api.openai.com/v1"), endpoints)?.field).toBe("api_key_env");
    expect(endpointRefusal(openai("http://127.0.0.1:19999/v1"), endpoints)?.field).toBe("base_url");
    expect(endpointRefusal(openai("https://api.openai.com/v1//", "OPENAI_API_KEY"), endpoints)?.field).toBe(
      "base_url",
    );
  });
});

describe("endpointLabel: a bounded metrics label, never a catalog's own names", () => {
  const conf: ModelsConf = {
    providers: {
      local: { ...openai(null), adapter: "fake" },
      listed: openai("http://127.0.0.1:11434/v1/"),
      unlisted: openai("http://127.0.0.1:19999/v1"),
    },
    aliases: {
      tenant_named_embed: { kind: "embedding", provider: "local", model: "m", dimensions: 4, space: "s" },
      tenant_named_chat: { kind: "model", targets: ["listed:llama"], params: {}, context_tokens: null },
      tenant_named_other: {
        kind: "model",
        targets: ["unlisted:x", "listed:y"],
        params: {},
        context_tokens: null,
      },
    },
    defaults: {},
  };

  it("labels by the endpoint the alias's first target sends to: listed URL, fake or other", () => {
    expect(endpointLabel(conf, "tenant_named_embed", endpoints)).toBe("fake");
    expect(endpointLabel(conf, "tenant_named_chat", endpoints)).toBe("http://127.0.0.1:11434/v1");
    expect(endpointLabel(conf, "tenant_named_other", endpoints)).toBe("other");
    expect(endpointLabel(conf, "no_such_alias", endpoints)).toBe("other");
  });
});
