import { describe, expect, it } from "vitest";
import { linkDerivation, parseDerivation } from "../../src/catalog/families/derivations.js";
import {
  derivation,
  expectDefinitionError,
  makeIndex,
  models,
  must,
  src,
} from "../support/catalog-families-fixture.js";

const FILE = "derivations/profile.yaml";
const at = (value: unknown) => src(FILE, "derivations", value);
const parse = (value: unknown) => parseDerivation(at(value));
type Value = ReturnType<typeof derivation> & Record<string, unknown>;
const changed = (change: (value: Value) => void) => {
  const value = derivation() as Value;
  change(value);
  return value;
};
const link = (value: unknown, index = makeIndex()) => {
  const s = at(value);
  linkDerivation(parseDerivation(s), s, index);
};
const source = (extra: Record<string, unknown>) =>
  changed((d) => {
    d.sources = { only: { kind: "snapshot", collections: ["customer_facts"], ...extra } } as never;
  });

describe("derivations: parse", () => {
  it("normalizes sources with their defaults", () => {
    const def = parse(derivation());
    expect(def.sources.events).toEqual({
      kind: "changes",
      collections: ["customer_events"],
      types: null,
      statuses: ["active"],
      keyed: "any",
      keys: null,
      max_records: 100,
      max_tokens: null,
      allow_empty: false,
    });
    expect(def.sources.facts?.keyed).toBe(true);
    expect(def.trigger?.name).toBe("profile_builder.default");
    expect(def.emit).toEqual({
      from: "profile",
      collection: "customer_facts",
      type: "profile",
      keys: ["tier", "summary"],
      key_rule: "any",
      complete: true,
      review: "required",
      max_records: 10,
    });
  });

  it("defaults emit review to none and complete to false", () => {
    const def = parse(
      changed((d) => {
        d.emit = { from: "profile", collection: "customer_facts", type: "profile" } as never;
      }),
    );
    expect(def.emit).toMatchObject({ review: "none", complete: false, keys: null, max_records: null });
  });

  it("refuses unknown fields", () => {
    expectDefinitionError(
      () => parse({ ...derivation(), schedule: 1 }),
      "definition_invalid",
      "derivations.0.schedule",
      FILE,
    );
  });

  it.each([["name"], ["sources"], ["limits"], ["tasks"], ["emit"]])("requires %s", (key) => {
    const value: Record<string, unknown> = derivation();
    delete value[key];
    expectDefinitionError(() => parse(value), "definition_invalid", `derivations.0.${key}`);
  });

  it("refuses an empty sources map and a bad source name", () => {
    expectDefinitionError(
      () => parse({ ...derivation(), sources: {} }),
      "definition_invalid",
      "derivations.0.sources",
    );
    expectDefinitionError(
      () => parse({ ...derivation(), sources: { "Bad-Name": { kind: "changes", collections: ["a"] } } }),
      "definition_invalid",
      "derivations.0.sources.Bad-Name",
    );
  });

  it("refuses an unknown source kind and unknown source fields", () => {
    expectDefinitionError(
      () => parse(source({ kind: "stream" })),
      "definition_invalid",
      "derivations.0.sources.only.kind",
    );
    expectDefinitionError(
      () => parse(source({ since: 1 })),
      "definition_invalid",
      "derivations.0.sources.only.since",
    );
  });

  it("refuses a source without collections", () => {
    expectDefinitionError(
      () => parse(source({ collections: [] })),
      "definition_invalid",
      "derivations.0.sources.only.collections",
    );
  });

  it("refuses statuses outside active and draft, and duplicates", () => {
    expectDefinitionError(
      () => parse(source({ statuses: ["retired"] })),
      "definition_invalid",
      "derivations.0.sources.only.statuses.0",
    );
    expectDefinitionError(
      () => parse(source({ statuses: ["draft", "draft"] })),
      "definition_duplicate",
      "derivations.0.sources.only.statuses.1",
    );
  });

  it("accepts keyed true, false and any and refuses anything else", () => {
    expect(parse(source({ keyed: false })).sources.only?.keyed).toBe(false);
    expect(parse(source({ keyed: "any" })).sources.only?.keyed).toBe("any");
    expectDefinitionError(
      () => parse(source({ keyed: "yes" })),
      "definition_invalid",
      "derivations.0.sources.only.keyed",
    );
  });

  it("refuses keys with keyed false", () => {
    expectDefinitionError(
      () => parse(source({ keyed: false, keys: ["tier"] })),
      "definition_invalid",
      "derivations.0.sources.only.keys",
    );
  });

  it("refuses keyed false on a current source", () => {
    expectDefinitionError(
      () => parse(source({ kind: "current", keyed: false })),
      "definition_invalid",
      "derivations.0.sources.only.keyed",
    );
  });

  it("refuses a source max_records above limits.max_retrieved_records", () => {
    expectDefinitionError(
      () => parse(source({ max_records: 201 })),
      "definition_invalid",
      "derivations.0.sources.only.max_records",
    );
  });

  it.each([
    ["max_records", 0],
    ["max_tokens", 1.5],
    ["allow_empty", "no"],
  ])("refuses source %s %s", (key, value) => {
    expectDefinitionError(
      () => parse(source({ [key]: value })),
      "definition_invalid",
      `derivations.0.sources.only.${key}`,
    );
  });

  it.each([
    ["max_tasks"],
    ["max_llm_calls"],
    ["max_retrieved_records"],
    ["max_visible_records"],
    ["max_total_tokens"],
    ["max_wall_s"],
  ])("requires a positive integer limits.%s", (key) => {
    const missing = changed((d) => {
      delete (d.limits as Record<string, unknown>)[key];
    });
    expectDefinitionError(() => parse(missing), "definition_invalid", `derivations.0.limits.${key}`);
    const zero = changed((d) => {
      (d.limits as Record<string, unknown>)[key] = 0;
    });
    expectDefinitionError(() => parse(zero), "definition_invalid", `derivations.0.limits.${key}`);
  });

  it("refuses max_visible_records above max_retrieved_records", () => {
    const value = changed((d) => {
      d.limits.max_visible_records = 300;
    });
    expectDefinitionError(
      () => parse(value),
      "definition_invalid",
      "derivations.0.limits.max_visible_records",
    );
  });

  it("refuses more tasks than max_tasks", () => {
    const value = changed((d) => {
      d.limits.max_tasks = 1;
      d.tasks.push({ ...must(d.tasks[0]), id: "second" });
    });
    expectDefinitionError(() => parse(value), "definition_invalid", "derivations.0.tasks");
  });

  it("refuses fewer llm calls than tasks", () => {
    const value = changed((d) => {
      d.limits.max_llm_calls = 1;
      d.tasks.push({ ...must(d.tasks[0]), id: "second" });
    });
    expectDefinitionError(() => parse(value), "definition_invalid", "derivations.0.limits.max_llm_calls");
  });

  it("refuses an empty task list", () => {
    expectDefinitionError(
      () => parse({ ...derivation(), tasks: [] }),
      "definition_invalid",
      "derivations.0.tasks",
    );
  });

  it("refuses duplicate task ids", () => {
    const value = changed((d) => {
      d.tasks.push({ ...must(d.tasks[0]) });
    });
    expectDefinitionError(() => parse(value), "definition_duplicate", "derivations.0.tasks.1.id");
  });

  it("refuses a task use other than llm", () => {
    const value = changed((d) => {
      (d.tasks[0] as Record<string, unknown>).use = "python";
    });
    expectDefinitionError(() => parse(value), "definition_invalid", "derivations.0.tasks.0.use");
  });

  it("requires prompt and output_schema under with, and refuses others", () => {
    const value = (w: Record<string, unknown>) =>
      changed((d) => {
        (d.tasks[0] as Record<string, unknown>).with = w;
      });
    expectDefinitionError(
      () => parse(value({ prompt: "p" })),
      "definition_invalid",
      "derivations.0.tasks.0.with.output_schema",
    );
    expectDefinitionError(
      () => parse(value({ output_schema: {} })),
      "definition_invalid",
      "derivations.0.tasks.0.with.prompt",
    );
    expectDefinitionError(
      () => parse(value({ prompt: "p", output_schema: {}, temperature: 1 })),
      "definition_invalid",
      "derivations.0.tasks.0.with.temperature",
    );
  });

  it("refuses an invalid output schema", () => {
    const value = changed((d) => {
      must(d.tasks[0]).with.output_schema = { type: 7 } as never;
    });
    expectDefinitionError(
      () => parse(value),
      "definition_invalid",
      "derivations.0.tasks.0.with.output_schema",
    );
  });

  it("refuses emit.from naming no task", () => {
    const value = changed((d) => {
      d.emit.from = "ghost";
    });
    expectDefinitionError(() => parse(value), "definition_unresolved", "derivations.0.emit.from");
  });

  it("takes key_rule dotted for keys the output chooses, not beside emit.keys", () => {
    const dotted = changed((d) => {
      delete (d.emit as Record<string, unknown>).keys;
      delete (d.emit as Record<string, unknown>).complete;
      (d.emit as Record<string, unknown>).key_rule = "dotted";
    });
    expect(parse(dotted).emit.key_rule).toBe("dotted");
    expect(parse(derivation()).emit.key_rule).toBe("any");
    const both = changed((d) => {
      (d.emit as Record<string, unknown>).key_rule = "dotted";
    });
    expectDefinitionError(() => parse(both), "definition_invalid", "derivations.0.emit.key_rule");
  });

  it("refuses complete true without keys", () => {
    const value = changed((d) => {
      delete (d.emit as Record<string, unknown>).keys;
    });
    expectDefinitionError(() => parse(value), "definition_invalid", "derivations.0.emit.complete");
  });

  it.each([
    ["review", "always"],
    ["complete", "yes"],
    ["max_records", 0],
    ["keys", []],
    ["key_rule", "snake"],
    ["collection", "Customer"],
  ])("refuses emit.%s %j", (key, value) => {
    const bad = changed((d) => {
      (d.emit as Record<string, unknown>)[key] = value;
    });
    expectDefinitionError(() => parse(bad), "definition_invalid", `derivations.0.emit.${key}`);
  });

  it("refuses duplicate emit keys and an unknown emit field", () => {
    const dup = changed((d) => {
      d.emit.keys = ["tier", "tier"];
    });
    expectDefinitionError(() => parse(dup), "definition_duplicate", "derivations.0.emit.keys.1");
    const unknown = changed((d) => {
      (d.emit as Record<string, unknown>).to = "x";
    });
    expectDefinitionError(() => parse(unknown), "definition_invalid", "derivations.0.emit.to");
  });

  it("checks the inline trigger at its own path", () => {
    const value = changed((d) => {
      d.trigger.accumulator.threshold = 0;
    });
    expectDefinitionError(
      () => parse(value),
      "definition_invalid",
      "derivations.0.trigger.accumulator.threshold",
    );
  });
});

describe("derivations: link", () => {
  it("refuses an unknown model alias and an embedding alias", () => {
    expectDefinitionError(
      () => link({ ...derivation(), model: "huge" }),
      "definition_unresolved",
      "derivations.0.model",
      FILE,
    );
    expectDefinitionError(
      () => link({ ...derivation(), model: "embed" }),
      "definition_invalid",
      "derivations.0.model",
    );
  });

  it("refuses a derivation without model when models declare no default", () => {
    const index = makeIndex((p) => {
      p.models = { ...models(), defaults: {} };
    });
    const value: Record<string, unknown> = derivation();
    delete value.model;
    expectDefinitionError(() => link(value, index), "definition_unresolved", "derivations.0.model");
  });

  it("refuses source collections that are unlisted or defined nowhere", () => {
    expectDefinitionError(
      () => link(source({ collections: ["customer_facts", "archive_events"] })),
      "package_not_closed",
      "derivations.0.sources.only.collections.1",
    );
    expectDefinitionError(
      () => link(source({ collections: ["ghosts"] })),
      "definition_unresolved",
      "derivations.0.sources.only.collections.0",
    );
  });

  it("refuses a current source over an event collection", () => {
    expectDefinitionError(
      () => link(source({ kind: "current", collections: ["customer_events"] })),
      "definition_invalid",
      "derivations.0.sources.only.collections.0",
    );
  });

  it("refuses an emission collection that is unlisted or has no active version", () => {
    const unlisted = changed((d) => {
      d.emit.collection = "archive_events";
    });
    expectDefinitionError(() => link(unlisted), "package_not_closed", "derivations.0.emit.collection");
    const index = makeIndex((p) => {
      (p.collections[1] as Record<string, unknown>).active = false;
    });
    expectDefinitionError(
      () => link(derivation(), index),
      "definition_invalid",
      "derivations.0.emit.collection",
    );
  });

  it("refuses emission keys into an event collection", () => {
    const value = changed((d) => {
      d.emit.collection = "customer_events";
    });
    expectDefinitionError(() => link(value), "definition_invalid", "derivations.0.emit.keys");
  });
});
