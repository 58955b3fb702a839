import { describe, expect, it } from "vitest";
import { Def } from "../../src/catalog/definition/def.js";
import { linkMcpInterface, parseMcpInterface } from "../../src/catalog/families/mcp-interface.js";
import { expectDefinitionError, makeIndex } from "../support/catalog-families-fixture.js";

const FILE = "mcp/agent.yaml";
type Value = Record<string, any>;
const base = (): Value => ({
  name: "agent",
  version: 2,
  title: "Support agent",
  instructions: "Use the tools.",
  tools: [
    { name: "recent_events", kind: "view", description: "Recent events", view: "recent_events@1" },
    { name: "support.prompt", kind: "artifact", description: "The prompt", artifact: "support_prompt@1" },
    { name: "ask", kind: "answer", description: "Ask memory" },
    { name: "get-record", kind: "record", description: "One record", title: "Record" },
    { name: "remember", kind: "ingest", description: "Write an event", collection: "customer_events@1" },
  ],
});
const changed = (change: (value: Value) => void) => {
  const value = base();
  change(value);
  return value;
};
const parse = (value: unknown) => parseMcpInterface(new Def(FILE, [], value));
const link = (value: unknown, index = makeIndex()) => {
  const src = new Def(FILE, [], value);
  linkMcpInterface(parseMcpInterface(src), src, index);
};

describe("mcp interface: parse", () => {
  it("normalizes tools and bindings in declared order", () => {
    const def = parse(base());
    expect(def).toMatchObject({
      name: "agent",
      version: 2,
      title: "Support agent",
      instructions: "Use the tools.",
    });
    expect(def.tools.map((tool) => [tool.name, tool.binding])).toEqual([
      ["recent_events", { kind: "view", reference: "recent_events@1" }],
      ["support.prompt", { kind: "artifact", reference: "support_prompt@1" }],
      ["ask", null],
      ["get-record", null],
      ["remember", { kind: "collection", reference: "customer_events@1" }],
    ]);
  });

  it("defaults the title to the name and instructions to null", () => {
    const def = parse(
      changed((v) => {
        delete v.title;
        delete v.instructions;
      }),
    );
    expect(def).toMatchObject({ title: "agent", instructions: null });
  });

  it("refuses a list instead of one interface", () => {
    expectDefinitionError(() => parse([base()]), "definition_invalid", "", FILE);
  });

  it("refuses unknown fields", () => {
    expectDefinitionError(() => parse({ ...base(), resources: [] }), "definition_invalid", "resources", FILE);
  });

  it.each([["name"], ["version"], ["tools"]])("requires %s", (key) => {
    expectDefinitionError(() => parse(changed((v) => delete v[key])), "definition_invalid", key);
  });

  it.each([[0], [1.5], ["1"]])("refuses version %j", (version) => {
    expectDefinitionError(() => parse({ ...base(), version }), "definition_invalid", "version");
  });

  it("refuses an empty tool list", () => {
    expectDefinitionError(() => parse({ ...base(), tools: [] }), "definition_invalid", "tools");
  });

  it.each([["has space"], [""], ["x".repeat(129)], ["tool/name"]])("refuses the tool name %j", (name) => {
    expectDefinitionError(
      () => parse(changed((v) => (v.tools[2].name = name))),
      "definition_invalid",
      "tools.2.name",
    );
  });

  it("refuses duplicate tool names", () => {
    expectDefinitionError(
      () => parse(changed((v) => (v.tools[3].name = "ask"))),
      "definition_duplicate",
      "tools.3.name",
    );
  });

  it("refuses an unknown kind and a missing description", () => {
    expectDefinitionError(
      () => parse(changed((v) => (v.tools[2].kind = "search"))),
      "definition_invalid",
      "tools.2.kind",
    );
    expectDefinitionError(
      () => parse(changed((v) => delete v.tools[2].description)),
      "definition_invalid",
      "tools.2.description",
    );
  });

  it("requires the binding of its kind", () => {
    expectDefinitionError(
      () => parse(changed((v) => delete v.tools[0].view)),
      "definition_invalid",
      "tools.0.view",
    );
    expectDefinitionError(
      () => parse(changed((v) => delete v.tools[1].artifact)),
      "definition_invalid",
      "tools.1.artifact",
    );
    expectDefinitionError(
      () => parse(changed((v) => delete v.tools[4].collection)),
      "definition_invalid",
      "tools.4.collection",
    );
  });

  it("refuses a binding of another kind", () => {
    expectDefinitionError(
      () => parse(changed((v) => (v.tools[0].artifact = "support_prompt@1"))),
      "definition_invalid",
      "tools.0.artifact",
    );
    expectDefinitionError(
      () => parse(changed((v) => (v.tools[2].collection = "customer_events@1"))),
      "definition_invalid",
      "tools.2.collection",
    );
    expectDefinitionError(
      () => parse(changed((v) => (v.tools[3].view = "recent_events@1"))),
      "definition_invalid",
      "tools.3.view",
    );
  });

  it("refuses an unversioned binding", () => {
    expectDefinitionError(
      () => parse(changed((v) => (v.tools[0].view = "recent_events"))),
      "definition_invalid",
      "tools.0.view",
    );
  });

  it("refuses unknown tool fields", () => {
    expectDefinitionError(
      () => parse(changed((v) => (v.tools[2].entities = []))),
      "definition_invalid",
      "tools.2.entities",
    );
  });
});

describe("mcp interface: link", () => {
  it("links tools bound to listed definitions", () => {
    link(base());
  });

  it.each([
    [0, "view", "legacy_view@1"],
    [1, "artifact", "old_prompt@1"],
    [4, "collection", "archive_events@1"],
  ])("refuses tool %i bound to a %s the package does not list", (i, key, reference) => {
    expectDefinitionError(
      () => link(changed((v) => (v.tools[i][key] = reference))),
      "package_not_closed",
      `tools.${i}.${key}`,
      FILE,
    );
  });

  it.each([
    [0, "view", "recent_events@9"],
    [1, "artifact", "ghost@1"],
    [4, "collection", "customer_events@2"],
  ])("refuses tool %i bound to a %s defined nowhere", (i, key, reference) => {
    expectDefinitionError(
      () => link(changed((v) => (v.tools[i][key] = reference))),
      "definition_unresolved",
      `tools.${i}.${key}`,
    );
  });

  it("binds a retract tool to a keyed collection and refuses an event one", () => {
    const retract = (collection: string) =>
      changed((v) => v.tools.push({ name: "forget", kind: "retract", description: "Forget", collection }));
    expect(parse(retract("customer_facts@1")).tools[5]).toMatchObject({
      kind: "retract",
      binding: { kind: "collection", reference: "customer_facts@1" },
    });
    expect(() => link(retract("customer_facts@1"))).not.toThrow();
    expectDefinitionError(
      () => link(retract("customer_events@1")),
      "definition_invalid",
      "tools.5.collection",
    );
  });

  it("refuses an answer tool when no active collection is answerable", () => {
    const index = makeIndex((p) => {
      for (const c of p.collections) c.answerable = false;
    });
    expectDefinitionError(() => link(base(), index), "definition_invalid", "tools.2.kind");
  });
});
