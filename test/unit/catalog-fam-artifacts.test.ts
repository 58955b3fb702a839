import { describe, expect, it } from "vitest";
import { Def } from "../../src/catalog/definition/def.js";
import { linkArtifact, parseArtifact, placeholders } from "../../src/catalog/families/artifacts.js";
import {
  expectDefinitionError,
  liveArtifact,
  makeIndex,
  reviewedArtifact,
  src,
} from "../support/catalog-families-fixture.js";

const FILE = "artifacts/prompts.yaml";
const at = (value: unknown) => src(FILE, "artifacts", value);
const parse = (value: unknown) => parseArtifact(at(value));
type Value = Record<string, any>;
const live = (change: (value: Value) => void = () => {}) => {
  const value = liveArtifact() as Value;
  change(value);
  return value;
};
const link = (value: unknown, index = makeIndex()) => {
  const s = at(value);
  linkArtifact(parseArtifact(s), s, index);
};

describe("artifacts: parse", () => {
  it("normalizes blocks and defaults", () => {
    const def = parse(
      live((a) => {
        delete a.kind;
        delete a.lifecycle;
        delete a.active;
      }),
    );
    expect(def).toMatchObject({ kind: "prompt", lifecycle: "live", active: false, candidate: null });
    expect(def.blocks.facts).toEqual({
      kind: "document",
      entity: "{{customer}}",
      collections: ["customer_facts"],
      status: "active",
      max_tokens: 2000,
    });
    expect(def.blocks.recent).toEqual({
      kind: "view",
      view: "recent_events@1",
      args: { customer: "{{ customer }}", limit: 5 },
      max_tokens: null,
    });
    expect(def.learning).toEqual({ block: "facts", artifact: "rules_prompt@1" });
    expect(def.snapshot).toEqual({ collection: "snapshots", type: "artifact_snapshot" });
  });

  it("reads placeholder names with optional spaces", () => {
    expect(placeholders("a {{x}} b {{ y_1 }}", new Def("f", [], ""))).toEqual(["x", "y_1"]);
  });

  it("refuses unknown fields", () => {
    expectDefinitionError(
      () => parse({ ...liveArtifact(), owner: "x" }),
      "definition_invalid",
      "artifacts.0.owner",
      FILE,
    );
  });

  it.each([["name"], ["version"], ["blocks"], ["template"]])("requires %s", (key) => {
    const value: Value = liveArtifact();
    delete value[key];
    expectDefinitionError(() => parse(value), "definition_invalid", `artifacts.0.${key}`);
  });

  it.each([
    ["version", 0],
    ["active", "yes"],
    ["kind", "document"],
    ["lifecycle", "draft"],
    ["name", "Support"],
  ])("refuses %s %j", (key, value) => {
    expectDefinitionError(
      () => parse({ ...liveArtifact(), [key]: value }),
      "definition_invalid",
      `artifacts.0.${key}`,
    );
  });

  it("passes parameter errors through at their path", () => {
    const value = live((a) => {
      a.parameters.customer = { type: "text" };
    });
    expectDefinitionError(() => parse(value), "definition_invalid", "artifacts.0.parameters.customer.type");
  });

  it("refuses an empty blocks map and a bad block name", () => {
    expectDefinitionError(
      () => parse({ ...liveArtifact(), blocks: {} }),
      "definition_invalid",
      "artifacts.0.blocks",
    );
    const value = live((a) => {
      a.blocks.Facts = a.blocks.facts;
    });
    expectDefinitionError(() => parse(value), "definition_invalid", "artifacts.0.blocks.Facts");
  });

  it("refuses a block named like a parameter", () => {
    const value = live((a) => {
      a.blocks.customer = { entity: "x", collections: ["customer_facts"] };
    });
    expectDefinitionError(() => parse(value), "definition_duplicate", "artifacts.0.blocks.customer");
  });

  it("refuses document block fields it does not know and requires entity and collections", () => {
    const block = (b: Value) => live((a) => (a.blocks.facts = b));
    expectDefinitionError(
      () => parse(block({ entity: "x", collections: ["c"], args: {} })),
      "definition_invalid",
      "artifacts.0.blocks.facts.args",
    );
    expectDefinitionError(
      () => parse(block({ collections: ["c"] })),
      "definition_invalid",
      "artifacts.0.blocks.facts.entity",
    );
    expectDefinitionError(
      () => parse(block({ entity: "x" })),
      "definition_invalid",
      "artifacts.0.blocks.facts.collections",
    );
    expectDefinitionError(
      () => parse(block({ entity: "x", collections: ["c"], status: "all" })),
      "definition_invalid",
      "artifacts.0.blocks.facts.status",
    );
    expectDefinitionError(
      () => parse(block({ entity: "x", collections: ["c"], max_tokens: 0 })),
      "definition_invalid",
      "artifacts.0.blocks.facts.max_tokens",
    );
  });

  it("refuses view block fields it does not know and a view reference without version", () => {
    const block = (b: Value) => live((a) => (a.blocks.recent = b));
    expectDefinitionError(
      () => parse(block({ view: "recent_events@1", collections: ["c"] })),
      "definition_invalid",
      "artifacts.0.blocks.recent.collections",
    );
    expectDefinitionError(
      () => parse(block({ view: "recent_events" })),
      "definition_invalid",
      "artifacts.0.blocks.recent.view",
    );
  });

  it("refuses an entity placeholder naming no parameter", () => {
    const value = live((a) => (a.blocks.facts.entity = "{{client}}"));
    expectDefinitionError(() => parse(value), "definition_unresolved", "artifacts.0.blocks.facts.entity");
  });

  it("refuses an argument placeholder naming no parameter, also inside lists", () => {
    const value = live((a) => (a.blocks.recent.args = { topics: ["a", "{{topic}}"] }));
    expectDefinitionError(
      () => parse(value),
      "definition_unresolved",
      "artifacts.0.blocks.recent.args.topics.1",
    );
  });

  it("refuses a template placeholder naming no block or parameter", () => {
    const value = live((a) => (a.template += "{{history}}"));
    expectDefinitionError(() => parse(value), "definition_unresolved", "artifacts.0.template");
  });

  it("refuses a malformed placeholder", () => {
    const value = live((a) => (a.template += "{{ two words }}"));
    expectDefinitionError(() => parse(value), "definition_invalid", "artifacts.0.template");
  });

  it("refuses a block the template never uses", () => {
    const value = live((a) => (a.template = "{{facts}}"));
    expectDefinitionError(() => parse(value), "definition_invalid", "artifacts.0.blocks.recent");
  });

  it("refuses a learning block that is missing, unknown or a view block", () => {
    expectDefinitionError(
      () => parse(live((a) => (a.learning = {}))),
      "definition_invalid",
      "artifacts.0.learning.block",
    );
    expectDefinitionError(
      () => parse(live((a) => (a.learning = { block: "ghost" }))),
      "definition_unresolved",
      "artifacts.0.learning.block",
    );
    // An Object member name is no block either.
    expectDefinitionError(
      () => parse(live((a) => (a.learning = { block: "constructor" }))),
      "definition_unresolved",
      "artifacts.0.learning.block",
    );
    expectDefinitionError(
      () => parse(live((a) => (a.learning = { block: "recent" }))),
      "definition_invalid",
      "artifacts.0.learning.block",
    );
    expectDefinitionError(
      () => parse(live((a) => (a.learning = { block: "facts", artifact: "rules_prompt" }))),
      "definition_invalid",
      "artifacts.0.learning.artifact",
    );
  });

  it("requires the snapshot collection and refuses unknown snapshot fields", () => {
    expectDefinitionError(
      () => parse(live((a) => (a.snapshot = {}))),
      "definition_invalid",
      "artifacts.0.snapshot.collection",
    );
    expectDefinitionError(
      () => parse(live((a) => (a.snapshot = { collection: "snapshots", ttl: 3 }))),
      "definition_invalid",
      "artifacts.0.snapshot.ttl",
    );
  });

  it("requires a candidate on a reviewed artifact and refuses one on a live artifact", () => {
    const reviewed: Value = reviewedArtifact();
    delete reviewed.candidate;
    expectDefinitionError(() => parse(reviewed), "definition_invalid", "artifacts.0.candidate");
    expectDefinitionError(
      () => parse(live((a) => (a.candidate = { derivation: "profile_builder", keys: ["tier"] }))),
      "definition_invalid",
      "artifacts.0.candidate",
    );
  });

  it("requires candidate keys", () => {
    const value: Value = { ...reviewedArtifact(), candidate: { derivation: "profile_builder" } };
    expectDefinitionError(() => parse(value), "definition_invalid", "artifacts.0.candidate.keys");
  });
});

describe("artifacts: link", () => {
  it("refuses document collections that are unlisted", () => {
    const value = live((a) => (a.blocks.facts.collections = ["archive_events"]));
    expectDefinitionError(
      () => link(value),
      "package_not_closed",
      "artifacts.0.blocks.facts.collections.0",
      FILE,
    );
  });

  it("refuses a view that is unlisted or defined nowhere", () => {
    expectDefinitionError(
      () => link(live((a) => (a.blocks.recent = { view: "legacy_view@1" }))),
      "package_not_closed",
      "artifacts.0.blocks.recent.view",
    );
    expectDefinitionError(
      () => link(live((a) => (a.blocks.recent = { view: "recent_events@2" }))),
      "definition_unresolved",
      "artifacts.0.blocks.recent.view",
    );
  });

  it("checks view arguments against the view's parameters", () => {
    expectDefinitionError(
      () => link(live((a) => (a.blocks.recent.args.since = "x"))),
      "definition_invalid",
      "artifacts.0.blocks.recent.args.since",
    );
    expectDefinitionError(
      () => link(live((a) => (a.blocks.recent.args.limit = "ten"))),
      "definition_invalid",
      "artifacts.0.blocks.recent.args.limit",
    );
    expectDefinitionError(
      () => link(live((a) => delete a.blocks.recent.args.customer)),
      "definition_invalid",
      "artifacts.0.blocks.recent.args",
    );
  });

  it("checks a literal view argument against every constraint, not only its type", () => {
    expectDefinitionError(
      () => link(live((a) => (a.blocks.recent.args.limit = 500))),
      "definition_invalid",
      "artifacts.0.blocks.recent.args.limit",
    );
    expect(() => link(live((a) => (a.blocks.recent.args.limit = 50)))).not.toThrow();
  });

  it("checks a whole-value placeholder's parameter type against the view parameter", () => {
    const withParam = (decl: Value) =>
      live((a) => {
        a.parameters.n = decl;
        a.blocks.recent.args.limit = "{{ n }}";
      });
    expectDefinitionError(
      () => link(withParam({ type: "string", default: "5" })),
      "definition_invalid",
      "artifacts.0.blocks.recent.args.limit",
    );
    expect(() => link(withParam({ type: "integer", default: 5 }))).not.toThrow();
  });

  it("refuses an argument named __proto__ instead of dropping it", () => {
    const args = JSON.parse('{"customer": "{{customer}}", "__proto__": 5}');
    expectDefinitionError(
      () => link(live((a) => (a.blocks.recent.args = args))),
      "definition_invalid",
      "artifacts.0.blocks.recent.args.__proto__",
    );
  });

  it("refuses text with placeholders for a view parameter that is not a string", () => {
    expectDefinitionError(
      () => link(live((a) => (a.blocks.recent.args.limit = "{{customer}}0"))),
      "definition_invalid",
      "artifacts.0.blocks.recent.args.limit",
    );
  });

  it("refuses an optional artifact parameter without default for a required view parameter", () => {
    expectDefinitionError(
      () => link(live((a) => (a.parameters.customer = { type: "string" }))),
      "definition_invalid",
      "artifacts.0.blocks.recent.args.customer",
    );
  });

  it("requires learning_signals to be listed when the artifact learns", () => {
    const index = makeIndex((p) => {
      p.collections.splice(2, 1);
    });
    expectDefinitionError(() => link(liveArtifact(), index), "definition_unresolved", "artifacts.0.learning");
  });

  it("refuses a learning artifact that is unlisted or not reviewed", () => {
    expectDefinitionError(
      () => link(live((a) => (a.learning.artifact = "old_prompt@1"))),
      "package_not_closed",
      "artifacts.0.learning.artifact",
    );
    expectDefinitionError(
      () => link(live((a) => (a.learning.artifact = "support_prompt@1"))),
      "definition_invalid",
      "artifacts.0.learning.artifact",
    );
  });

  it("refuses a snapshot collection that is unlisted, inactive or an event collection", () => {
    expectDefinitionError(
      () => link(live((a) => (a.snapshot.collection = "archive_events"))),
      "package_not_closed",
      "artifacts.0.snapshot.collection",
    );
    expectDefinitionError(
      () => link(live((a) => (a.snapshot.collection = "customer_events"))),
      "definition_invalid",
      "artifacts.0.snapshot.collection",
    );
    const index = makeIndex((p) => {
      (p.collections[3] as Value).active = false;
    });
    expectDefinitionError(
      () => link(liveArtifact(), index),
      "definition_invalid",
      "artifacts.0.snapshot.collection",
    );
  });

  it("refuses a candidate derivation that is unlisted or not reviewed", () => {
    const reviewed = (candidate: Value) => ({ ...reviewedArtifact(), candidate });
    expectDefinitionError(
      () => link(reviewed({ derivation: "unlisted_derivation", keys: ["tier"] })),
      "package_not_closed",
      "artifacts.0.candidate.derivation",
    );
    const index = makeIndex((p) => {
      (p.derivations[0] as Value).emit.review = "none";
    });
    expectDefinitionError(
      () => link(reviewedArtifact(), index),
      "definition_invalid",
      "artifacts.0.candidate.derivation",
    );
  });

  it("refuses candidate keys the derivation never emits", () => {
    const value = {
      ...reviewedArtifact(),
      candidate: { derivation: "profile_builder", keys: ["tier", "mood"] },
    };
    expectDefinitionError(() => link(value), "definition_invalid", "artifacts.0.candidate.keys.1");
  });
});
