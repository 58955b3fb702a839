import { describe, expect, it } from "vitest";
import { Def } from "../../src/catalog/definition/def.js";
import {
  CRON_MIN_INTERVAL_S,
  linkTrigger,
  parseInlineTrigger,
  parseTrigger,
} from "../../src/catalog/families/triggers.js";
import {
  expectDefinitionError,
  makeIndex,
  scoreProcessor,
  src,
} from "../support/catalog-families-fixture.js";

const FILE = "triggers/main.yaml";
const at = (value: unknown) => src(FILE, "triggers", value);
const parse = (value: unknown) => parseTrigger(at(value));
const accumulator = (extra: Record<string, unknown> = {}) => ({
  name: "busy",
  derivation: "profile_builder",
  accumulator: { metric: "importance", threshold: 2.5, ...extra },
});
const link = (value: unknown, index = makeIndex()) => {
  const s = at(value);
  linkTrigger(parseTrigger(s), s, index);
};

describe("triggers: parse", () => {
  it("defaults on to accumulator and cooldown_s to 0", () => {
    expect(parse(accumulator())).toEqual({
      name: "busy",
      derivation: "profile_builder",
      inline: false,
      on: "accumulator",
      accumulator: { metric: "importance", threshold: 2.5, cooldown_s: 0 },
      collections: null,
      cron: null,
      cooldown_s: null,
      description: null,
    });
  });

  it("parses write, read and cron triggers", () => {
    expect(
      parse({ name: "w", derivation: "d", on: "write", collections: ["a"], cooldown_s: 5 }),
    ).toMatchObject({
      on: "write",
      collections: ["a"],
      cooldown_s: 5,
    });
    expect(parse({ name: "r", derivation: "d", on: "read" })).toMatchObject({ on: "read", cooldown_s: 0 });
    expect(parse({ name: "c", derivation: "d", on: "cron", cron: "*/5 * * * *" })).toMatchObject({
      cron: "*/5 * * * *",
    });
  });

  it("parses the inline form under a derivation", () => {
    const inline = new Def("derivations/d.yaml", ["derivations", 0, "trigger"], { on: "read" });
    expect(parseInlineTrigger(inline, "profile_builder")).toMatchObject({
      name: "profile_builder.default",
      derivation: "profile_builder",
      inline: true,
    });
  });

  it("refuses name and derivation in the inline form", () => {
    const inline = new Def("derivations/d.yaml", ["derivations", 0, "trigger"], { name: "x", on: "read" });
    expectDefinitionError(
      () => parseInlineTrigger(inline, "d"),
      "definition_invalid",
      "derivations.0.trigger.name",
      "derivations/d.yaml",
    );
  });

  it("requires name and derivation on a standalone trigger", () => {
    expectDefinitionError(
      () => parse({ derivation: "d", on: "read" }),
      "definition_invalid",
      "triggers.0.name",
      FILE,
    );
    expectDefinitionError(
      () => parse({ name: "t", on: "read" }),
      "definition_invalid",
      "triggers.0.derivation",
    );
  });

  it("refuses a standalone name with a dot (reserved for inline triggers)", () => {
    expectDefinitionError(
      () => parse({ ...accumulator(), name: "d.default" }),
      "definition_invalid",
      "triggers.0.name",
    );
  });

  it("refuses an unknown on", () => {
    expectDefinitionError(
      () => parse({ ...accumulator(), on: "webhook" }),
      "definition_invalid",
      "triggers.0.on",
    );
  });

  it("requires the accumulator block of an accumulator trigger", () => {
    expectDefinitionError(
      () => parse({ name: "t", derivation: "d" }),
      "definition_invalid",
      "triggers.0.accumulator",
    );
  });

  it("requires metric and threshold", () => {
    expectDefinitionError(
      () => parse({ name: "t", derivation: "d", accumulator: { threshold: 1 } }),
      "definition_invalid",
      "triggers.0.accumulator.metric",
    );
    expectDefinitionError(
      () => parse({ name: "t", derivation: "d", accumulator: { metric: "importance" } }),
      "definition_invalid",
      "triggers.0.accumulator.threshold",
    );
  });

  it.each([[0], [-1], ["3"]])("refuses threshold %s", (threshold) => {
    expectDefinitionError(
      () => parse(accumulator({ threshold })),
      "definition_invalid",
      "triggers.0.accumulator.threshold",
    );
  });

  it.each([[-1], [1.5]])("refuses cooldown_s %s", (cooldown) => {
    expectDefinitionError(
      () => parse(accumulator({ cooldown_s: cooldown })),
      "definition_invalid",
      "triggers.0.accumulator.cooldown_s",
    );
  });

  it("refuses unknown accumulator fields", () => {
    expectDefinitionError(
      () => parse(accumulator({ window: 3 })),
      "definition_invalid",
      "triggers.0.accumulator.window",
    );
  });

  it("refuses fields of another firing rule", () => {
    expectDefinitionError(
      () => parse({ ...accumulator(), cron: "* * * * *" }),
      "definition_invalid",
      "triggers.0.cron",
    );
    expectDefinitionError(
      () => parse({ name: "t", derivation: "d", on: "read", collections: ["a"] }),
      "definition_invalid",
      "triggers.0.collections",
    );
    expectDefinitionError(
      () => parse({ name: "t", derivation: "d", on: "cron", cron: "* * * * *", accumulator: {} }),
      "definition_invalid",
      "triggers.0.accumulator",
    );
  });

  it("requires and checks the cron expression", () => {
    expectDefinitionError(
      () => parse({ name: "t", derivation: "d", on: "cron" }),
      "definition_invalid",
      "triggers.0.cron",
    );
    expectDefinitionError(
      () => parse({ name: "t", derivation: "d", on: "cron", cron: "every day" }),
      "definition_invalid",
      "triggers.0.cron",
    );
  });

  it("refuses a schedule whose ticks come closer than CRON_MIN_INTERVAL_S, wherever in its year", () => {
    // Every second; every minute; two minutes apart once a day; every minute of 29 February only.
    for (const cron of ["* * * * * *", "* * * * *", "0,1 3 * * *", "* * 29 2 *", "0,59 0,23 * * *"]) {
      expectDefinitionError(
        () => parse({ name: "t", derivation: "d", on: "cron", cron }),
        "definition_invalid",
        "triggers.0.cron",
      );
    }
    for (const cron of ["*/5 * * * *", "0 */5 * * * *", "0 3 * * *", "0 0 1 1 *"]) {
      expect(parse({ name: "t", derivation: "d", on: "cron", cron }).cron).toBe(cron);
    }
    expect(CRON_MIN_INTERVAL_S).toBe(300);
  });

  it("refuses duplicate write collections", () => {
    expectDefinitionError(
      () => parse({ name: "t", derivation: "d", on: "write", collections: ["a", "a"] }),
      "definition_duplicate",
      "triggers.0.collections.1",
    );
  });
});

describe("triggers: link", () => {
  it("links an accumulator and a write trigger", () => {
    link(accumulator());
    link({ name: "w", derivation: "profile_builder", on: "write", collections: ["customer_events"] });
  });

  it("refuses a derivation defined nowhere", () => {
    expectDefinitionError(
      () => link({ ...accumulator(), derivation: "ghost" }),
      "definition_unresolved",
      "triggers.0.derivation",
      FILE,
    );
  });

  it("refuses a derivation the package does not list", () => {
    expectDefinitionError(
      () => link({ ...accumulator(), derivation: "unlisted_derivation" }),
      "package_not_closed",
      "triggers.0.derivation",
    );
  });

  it("refuses a metric that is no processor, or an unlisted one", () => {
    expectDefinitionError(
      () => link(accumulator({ metric: "ghost" })),
      "definition_unresolved",
      "triggers.0.accumulator.metric",
    );
    expectDefinitionError(
      () => link(accumulator({ metric: "unlisted_score" })),
      "package_not_closed",
      "triggers.0.accumulator.metric",
    );
  });

  it("refuses a metric that is not a score processor", () => {
    expectDefinitionError(
      () => link(accumulator({ metric: "topics" })),
      "definition_invalid",
      "triggers.0.accumulator.metric",
    );
  });

  it("refuses a metric that scores none of the derivation's source collections", () => {
    const index = makeIndex((p) => {
      p.processors.push({
        ...scoreProcessor(),
        name: "urgency",
        input: { collections: ["learning_signals"] },
      });
    });
    expectDefinitionError(
      () => link(accumulator({ metric: "urgency" }), index),
      "definition_invalid",
      "triggers.0.accumulator.metric",
    );
  });

  it("refuses write collections that are unlisted or not sources of the derivation", () => {
    const write = (collections: string[]) => ({
      name: "w",
      derivation: "profile_builder",
      on: "write",
      collections,
    });
    expectDefinitionError(
      () => link(write(["archive_events"])),
      "package_not_closed",
      "triggers.0.collections.0",
    );
    expectDefinitionError(
      () => link(write(["customer_events", "snapshots"])),
      "definition_invalid",
      "triggers.0.collections.1",
    );
  });

  it("points an inline trigger's unresolved derivation at the trigger itself", () => {
    const inline = new Def("derivations/d.yaml", ["derivations", 3, "trigger"], { on: "read" });
    expectDefinitionError(
      () => linkTrigger(parseInlineTrigger(inline, "ghost"), inline, makeIndex()),
      "definition_unresolved",
      "derivations.3.trigger",
    );
  });
});
