// The families through the real loader: YAML files in, a linked index out.
import { describe, expect, it } from "vitest";
import { loadCatalog } from "../../src/catalog/index.js";
import { expectDefinitionError } from "../support/catalog-families-fixture.js";
import { minimalFiles } from "../support/catalog-files.js";

const FILES = {
  "collections/more.yaml": `collections:
  - name: learning_signals
    version: 1
    active: true
    mode: event
    schema: { type: object }
    search_profile: main
`,
  "processors/enrich.yaml": `processors:
  - name: importance
    kind: score
    input: { collections: [notes] }
    scale: [0, 1]
    default: 0
    model: chat
    prompt: How important is this note?
`,
  "derivations/profile.yaml": `derivations:
  - name: profile
    sources:
      notes: { kind: changes, collections: [notes] }
    limits: { max_tasks: 1, max_llm_calls: 2, max_retrieved_records: 100, max_visible_records: 50, max_total_tokens: 8000, max_wall_s: 60 }
    tasks:
      - id: facts
        use: llm
        with:
          prompt: Extract facts.
          output_schema: { type: object }
    emit: { from: facts, collection: facts, type: fact, keys: [tier], review: required }
`,
  "triggers/main.yaml": `triggers:
  - name: busy
    derivation: profile
    accumulator: { metric: importance, threshold: 2, cooldown_s: 30 }
`,
  "artifacts/prompts.yaml": `artifacts:
  - name: brief
    version: 1
    active: true
    lifecycle: reviewed
    parameters:
      entity: { type: string, required: true }
    blocks:
      facts: { entity: "{{entity}}", collections: [facts] }
    template: "Facts about {{ entity }}:\\n{{facts}}"
    learning: { block: facts }
    candidate: { derivation: profile, keys: [tier] }
`,
  "mcp/agent.yaml": `name: agent
version: 1
tools:
  - { name: brief, kind: artifact, artifact: brief@1, description: The brief }
  - { name: remember, kind: ingest, collection: notes@1, description: Write a note }
`,
};

const PACKAGE = `name: demo-pack
version: 1.0.0
collections: [notes@1, facts@1, learning_signals@1]
search_profiles: [main]
processors: [importance, profile]
triggers: [busy]
artifacts: [brief@1]
mcp: agent@1
`;

describe("families through the loader", () => {
  it("loads processors, derivations, triggers, artifacts and an MCP interface", () => {
    const loaded = loadCatalog(
      minimalFiles({ ...FILES, "packages/demo-pack.yaml": PACKAGE }),
      "demo-pack@1.0.0",
    );
    expect([...loaded.index.processors.keys()]).toEqual(["importance"]);
    expect([...loaded.index.derivations.keys()]).toEqual(["profile"]);
    expect(loaded.index.triggers.get("busy")?.def.accumulator?.metric).toBe("importance");
    expect(loaded.index.artifacts.get("brief@1")?.def.lifecycle).toBe("reviewed");
    expect(loaded.index.mcp?.def.tools.map((tool) => tool.name)).toEqual(["brief", "remember"]);
  });

  it("refuses a package that uses a trigger metric it does not list", () => {
    const unlisted = PACKAGE.replace("processors: [importance, profile]", "processors: [profile]");
    expectDefinitionError(
      () => loadCatalog(minimalFiles({ ...FILES, "packages/demo-pack.yaml": unlisted }), "demo-pack@1.0.0"),
      "package_not_closed",
      "triggers.0.accumulator.metric",
      "triggers/main.yaml",
    );
  });
});
