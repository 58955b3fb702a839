// A small valid catalog as POST /catalog files, for tests that change one thing at a time.

export const MODELS_YAML = `providers:
  local:
    adapter: fake
aliases:
  embed:
    provider: local
    model: fake-embed
    dimensions: 64
    space: fake-64-v1
  chat:
    targets: ["local:fake-chat"]
    params: { max_output_tokens: 512 }
    context_tokens: 8000
defaults:
  derivation: chat
`;

/** conf/models.yaml with an 8-dimension embedding and a chat model behind an OpenAI-compatible stub. */
export function stubModelsYaml(baseUrl: string): string {
  return `providers:
  stub: { adapter: openai, base_url: "${baseUrl}" }
aliases:
  embed: { provider: stub, model: stub-embed, dimensions: 8, space: stub-8 }
  chat: { targets: ["stub:gpt-test"], params: { max_output_tokens: 256 }, context_tokens: 8000 }
defaults:
  derivation: chat
`;
}

export const PROFILES_YAML = `search_profiles:
  - name: main
    engine: postgres
    embedding: embed
    text_config: english
`;

/**
 * collections/main.yaml with an event collection of this name declaring these fields (name →
 * declaration inside `{ path: name, … }`), any content allowed, beside the keyed `facts`.
 */
export function fieldsCollectionsYaml(name: string, fields: Record<string, string>): string {
  const declared = Object.entries(fields).map(
    ([field, decl]) => `      ${field}: { path: ${field}, ${decl} }\n`,
  );
  return `collections:
  - name: ${name}
    version: 1
    active: true
    mode: event
    schema: { type: object }
${declared.length > 0 ? `    fields:\n${declared.join("")}` : ""}    search_profile: main
  - name: facts
    version: 1
    active: true
    mode: keyed
    schema: { type: object }
    search_profile: main
`;
}

export const COLLECTIONS_YAML = `collections:
  - name: notes
    version: 1
    active: true
    mode: event
    schema:
      type: object
      properties:
        topic: { type: string }
        priority: { type: integer }
      additionalProperties: false
    fields:
      topic: { path: topic, type: string, filter: true, return: true }
      priority: { path: priority, type: integer, filter: true, sort: true }
    search_profile: main
  - name: facts
    version: 1
    active: true
    mode: keyed
    schema: { type: object }
    search_profile: main
`;

export const PACKAGE_YAML = `name: demo-pack
version: 1.0.0
collections: [notes@1, facts@1]
search_profiles: [main]
`;

export function minimalFiles(overrides: Record<string, string | undefined> = {}): Record<string, string> {
  const files: Record<string, string | undefined> = {
    "conf/models.yaml": MODELS_YAML,
    "search_profiles/main.yaml": PROFILES_YAML,
    "collections/main.yaml": COLLECTIONS_YAML,
    "packages/demo-pack.yaml": PACKAGE_YAML,
    ...overrides,
  };
  return Object.fromEntries(Object.entries(files).filter(([, v]) => v !== undefined)) as Record<
    string,
    string
  >;
}

export const MINIMAL_PACKAGE = "demo-pack@1.0.0";
