import { describe, expect, it } from "vitest";
import { Def } from "../../src/catalog/definition/def.js";
import { artifactSummary, linkArtifact } from "../../src/catalog/families/artifacts.js";
import { derivationSummary, inlineTrigger, linkDerivation } from "../../src/catalog/families/derivations.js";
import { linkMcpInterface, parseMcpInterface } from "../../src/catalog/families/mcp-interface.js";
import { linkProcessor, processorSummary } from "../../src/catalog/families/processors.js";
import {
  inlineTriggerDerivation,
  linkTrigger,
  parseTrigger,
  triggerName,
  triggerSummary,
} from "../../src/catalog/families/triggers.js";
import { modelAlias } from "../../src/catalog/index.js";
import { makeIndex, must, src, standaloneTrigger } from "../support/catalog-families-fixture.js";

describe("catalog families: the base fixture", () => {
  it("links every family without error", () => {
    const index = makeIndex();
    for (const e of index.processors.values()) linkProcessor(e.def, e.src, index);
    for (const e of index.derivations.values()) linkDerivation(e.def, e.src, index);
    for (const e of index.triggers.values()) linkTrigger(e.def, e.src, index);
    for (const e of index.artifacts.values()) linkArtifact(e.def, e.src, index);
    const trigger = src("triggers/t.yaml", "triggers", standaloneTrigger());
    linkTrigger(parseTrigger(trigger), trigger, index);
    const mcp = new Def("mcp/agent.yaml", [], {
      name: "agent",
      version: 1,
      tools: [
        { name: "recent", kind: "view", description: "d", view: "recent_events@1" },
        { name: "prompt", kind: "artifact", description: "d", artifact: "support_prompt@1" },
        { name: "ask", kind: "answer", description: "d" },
        { name: "record", kind: "record", description: "d" },
        { name: "remember", kind: "ingest", description: "d", collection: "customer_events@1" },
      ],
    });
    linkMcpInterface(parseMcpInterface(mcp), mcp, index);
  });
});

describe("inline trigger names", () => {
  it("names an inline trigger <derivation>.default and reads it back", () => {
    expect(triggerName("profile_builder")).toBe("profile_builder.default");
    expect(inlineTriggerDerivation("profile_builder.default")).toBe("profile_builder");
    expect(inlineTriggerDerivation("nightly")).toBeNull();
    expect(inlineTriggerDerivation("Bad-Name.default")).toBeNull();
  });

  it("exposes the inline trigger as an entry at the derivation's trigger key", () => {
    const index = makeIndex();
    const derivation = index.derivations.get("profile_builder");
    const inline = derivation && inlineTrigger(derivation);
    expect(inline?.def).toMatchObject({
      name: "profile_builder.default",
      derivation: "profile_builder",
      inline: true,
      on: "accumulator",
      accumulator: { metric: "importance", threshold: 3, cooldown_s: 60 },
    });
    expect(inline?.src.path).toEqual(["derivations", 0, "trigger"]);
  });
});

describe("discovery summaries", () => {
  it("summarizes a processor without its prompt", () => {
    const index = makeIndex();
    const summary = processorSummary(must(index.processors.get("importance")).def);
    expect(summary).toEqual({
      name: "importance",
      family: "enrichment",
      kind: "score",
      source: "llm",
      input: { collections: ["customer_events"] },
      scale: [0, 1],
      default: 0,
      model: "fast",
      description: null,
    });
    expect(JSON.stringify(summary)).not.toContain("important");
  });

  it("summarizes a derivation without task configuration or prompts", () => {
    const index = makeIndex();
    const summary = derivationSummary(must(index.derivations.get("profile_builder")).def);
    expect(summary).toMatchObject({
      name: "profile_builder",
      family: "derivation",
      source: ["changes", "current"],
      model: "fast",
      trigger: "profile_builder.default",
      tasks: [{ id: "profile", use: "llm" }],
      limits: { max_tasks: 2, max_llm_calls: 4, max_wall_s: 120 },
      emit: { from: "profile", collection: "customer_facts", keys: ["tier", "summary"], review: "required" },
    });
    expect(JSON.stringify(summary)).not.toContain("Summarize");
    expect(JSON.stringify(summary)).not.toContain("output_schema");
  });

  it("summarizes a trigger with the derivations it queues", () => {
    const trigger = src("triggers/t.yaml", "triggers", standaloneTrigger());
    expect(triggerSummary("nightly", parseTrigger(trigger))).toEqual({
      name: "nightly",
      inline: false,
      on: "cron",
      derivations: ["profile_builder"],
      accumulator: null,
      collections: null,
      cron: "0 3 * * *",
      cooldown_s: null,
      description: null,
    });
  });

  it("summarizes an artifact with compact parameters and blocks, without its template", () => {
    const index = makeIndex();
    const summary = artifactSummary(must(index.artifacts.get("support_prompt@1")).def);
    expect(summary).toEqual({
      name: "support_prompt",
      version: 1,
      active: true,
      kind: "prompt",
      lifecycle: "live",
      description: null,
      parameters: { customer: { type: "string", required: true } },
      blocks: {
        facts: { kind: "document", collections: ["customer_facts"], status: "active", max_tokens: 2000 },
        recent: { kind: "view", view: "recent_events@1", max_tokens: null },
      },
      learning: { block: "facts", artifact: "rules_prompt@1" },
      snapshot: true,
      candidate: null,
    });
  });

  it("falls back to the models' default derivation alias", () => {
    const index = makeIndex((p) => {
      delete (p.derivations[0] as Record<string, unknown>).model;
    });
    const def = must(index.derivations.get("profile_builder")).def;
    expect(def.model).toBeNull();
    expect(modelAlias(def, index)).toBe("fast");
  });
});
