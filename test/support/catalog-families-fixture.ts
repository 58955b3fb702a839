// A hand-built CatalogIndex for the family parsers' unit tests (no files, no loader, no
// database): valid base definitions as plain objects, parsed by the families' own parsers.
import { expect } from "vitest";
import type { ReferenceFamily } from "../../src/catalog/definition/catalog-index.js";
import { Def } from "../../src/catalog/definition/def.js";
import { DefinitionError } from "../../src/catalog/definition/definition-error.js";
import { parseParameters } from "../../src/catalog/definition/params.js";
import { DEFAULT_RANK_CONF } from "../../src/catalog/definition/rank.js";
import type { Entry } from "../../src/catalog/definition/types.js";
import { parseArtifact } from "../../src/catalog/families/artifacts.js";
import { parseCollection } from "../../src/catalog/families/collections.js";
import { inlineTrigger, parseDerivation } from "../../src/catalog/families/derivations.js";
import { parseModels } from "../../src/catalog/families/models.js";
import { parseProcessor } from "../../src/catalog/families/processors.js";
import {
  type ArtifactDef,
  type CatalogIndex,
  type CollectionDef,
  type DerivationDef,
  type ParamDecl,
  type ProcessorDef,
  ref,
  type TriggerDef,
  type ViewDef,
} from "../../src/catalog/index.js";

/** A Def for a list item of a catalog file, e.g. processors/enrich.yaml at processors.0. */
export function src(file: string, listKey: string, value: unknown, index = 0): Def {
  return new Def(file, [listKey, index], value);
}

export function entry<T>(
  parse: (src: Def) => T,
  file: string,
  listKey: string,
  value: unknown,
  index = 0,
): Entry<T> {
  const at = src(file, listKey, value, index);
  return { def: parse(at), src: at };
}

const schema = { type: "object", properties: { tier: { type: "string" } } };

export const collection = (name: string, mode: string, extra: Record<string, unknown> = {}) => ({
  name,
  version: 1,
  active: true,
  mode,
  schema,
  search_profile: "default",
  ...extra,
});

export const models = () => ({
  providers: { fake: { adapter: "fake" } },
  aliases: {
    fast: { targets: ["fake:small"] },
    embed: { provider: "fake", model: "hash", dimensions: 8, space: "fake-8" },
  },
  defaults: { derivation: "fast" },
});

export const scoreProcessor = () => ({
  name: "importance",
  kind: "score",
  source: "llm",
  input: { collections: ["customer_events"] },
  scale: [0, 1],
  default: 0,
  model: "fast",
  prompt: "How important is this event?",
});

export const embeddingProcessor = () => ({
  name: "embedder",
  kind: "embedding",
  input: { collections: ["customer_events", "customer_facts"] },
  model: "embed",
});

export const jsonProcessor = () => ({
  name: "topics",
  kind: "json",
  input: { collections: ["customer_events"] },
  model: "fast",
  prompt: "List the topics.",
  output_schema: { type: "array", items: { type: "string" } },
  default: [],
});

export const derivation = () => ({
  name: "profile_builder",
  trigger: { accumulator: { metric: "importance", threshold: 3, cooldown_s: 60 } },
  sources: {
    events: { kind: "changes", collections: ["customer_events"], max_records: 100 },
    facts: { kind: "current", collections: ["customer_facts"], keyed: true },
  },
  model: "fast",
  limits: {
    max_tasks: 2,
    max_llm_calls: 4,
    max_retrieved_records: 200,
    max_visible_records: 100,
    max_total_tokens: 20000,
    max_wall_s: 120,
  },
  tasks: [
    {
      id: "profile",
      use: "llm",
      with: { prompt: "Summarize the customer.", output_schema: { type: "object" } },
    },
  ],
  emit: {
    from: "profile",
    collection: "customer_facts",
    type: "profile",
    keys: ["tier", "summary"],
    complete: true,
    review: "required",
    max_records: 10,
  },
});

export const standaloneTrigger = () => ({
  name: "nightly",
  derivation: "profile_builder",
  on: "cron",
  cron: "0 3 * * *",
});

export const liveArtifact = () => ({
  name: "support_prompt",
  version: 1,
  active: true,
  kind: "prompt",
  lifecycle: "live",
  parameters: { customer: { type: "string", required: true } },
  blocks: {
    facts: { entity: "{{customer}}", collections: ["customer_facts"], max_tokens: 2000 },
    recent: { view: "recent_events@1", args: { customer: "{{ customer }}", limit: 5 } },
  },
  template: "Customer {{customer}}\n{{facts}}\n{{ recent }}",
  learning: { block: "facts", artifact: "rules_prompt@1" },
  snapshot: { collection: "snapshots" },
});

export const reviewedArtifact = () => ({
  name: "rules_prompt",
  version: 1,
  active: true,
  lifecycle: "reviewed",
  parameters: { customer: { type: "string", required: true } },
  blocks: { rules: { entity: "{{customer}}", collections: ["customer_facts"] } },
  template: "{{rules}}",
  candidate: { derivation: "profile_builder", keys: ["tier"] },
});

function view(name: string, version: number, parameters: Record<string, ParamDecl>): ViewDef {
  // Only the fields the families read; the view family owns the full shape.
  return { name, version, active: true, kind: "search", parameters } as unknown as ViewDef;
}

/** Identities defined in the upload but not listed by the package (package_not_closed cases). */
export const UNLISTED: Record<ReferenceFamily, string[]> = {
  collections: ["archive_events@1"],
  views: ["legacy_view@1"],
  artifacts: ["old_prompt@1"],
  processors: ["unlisted_score"],
  derivations: ["unlisted_derivation"],
  triggers: ["unlisted_trigger"],
  search_profiles: [],
  mcp: [],
};

/** The base index: every base definition listed and parsed; changes via the callback. */
export function makeIndex(
  change: (parts: {
    collections: Record<string, unknown>[];
    processors: Record<string, unknown>[];
    derivations: Record<string, unknown>[];
    artifacts: Record<string, unknown>[];
    models: Record<string, unknown>;
  }) => void = () => {},
): CatalogIndex {
  const parts = {
    collections: [
      collection("customer_events", "event"),
      collection("customer_facts", "keyed", { answerable: true }),
      collection("learning_signals", "event"),
      collection("snapshots", "keyed"),
    ],
    processors: [scoreProcessor(), embeddingProcessor(), jsonProcessor()],
    derivations: [derivation()],
    artifacts: [liveArtifact(), reviewedArtifact()],
    models: models() as Record<string, unknown>,
  };
  change(parts);
  const collections = new Map<string, Entry<CollectionDef>>();
  parts.collections.forEach((value, i) => {
    const e = entry(parseCollection, "collections/main.yaml", "collections", value, i);
    collections.set(ref(e.def.name, e.def.version), e);
  });
  const processors = new Map<string, Entry<ProcessorDef>>();
  parts.processors.forEach((value, i) => {
    const e = entry(parseProcessor, "processors/enrich.yaml", "processors", value, i);
    processors.set(e.def.name, e);
  });
  const derivations = new Map<string, Entry<DerivationDef>>();
  const triggers = new Map<string, Entry<TriggerDef>>();
  parts.derivations.forEach((value, i) => {
    const e = entry(parseDerivation, "derivations/profile.yaml", "derivations", value, i);
    derivations.set(e.def.name, e);
    const inline = inlineTrigger(e);
    if (inline) triggers.set(inline.def.name, inline);
  });
  const artifacts = new Map<string, Entry<ArtifactDef>>();
  parts.artifacts.forEach((value, i) => {
    const e = entry(parseArtifact, "artifacts/prompts.yaml", "artifacts", value, i);
    artifacts.set(ref(e.def.name, e.def.version), e);
  });
  const views = new Map<string, Entry<ViewDef>>();
  const recent = view("recent_events", 1, {
    ...parseParameters(
      new Def("views/recent.yaml", ["views", 0, "parameters"], {
        customer: { type: "string", required: true },
        limit: { type: "integer", default: 10, minimum: 1, maximum: 50 },
      }),
    ),
  });
  views.set("recent_events@1", { def: recent, src: new Def("views/recent.yaml", ["views", 0], {}) });
  const manifestSrc = new Def("packages/support.yaml", [], {});
  const defined = Object.fromEntries(
    (Object.keys(UNLISTED) as ReferenceFamily[]).map((family) => [family, new Set(UNLISTED[family])]),
  ) as Record<ReferenceFamily, Set<string>>;
  for (const id of collections.keys()) defined.collections.add(id);
  for (const id of processors.keys()) defined.processors.add(id);
  for (const id of derivations.keys()) defined.derivations.add(id);
  for (const id of artifacts.keys()) defined.artifacts.add(id);
  for (const id of views.keys()) defined.views.add(id);
  return {
    manifest: {
      def: {
        name: "support",
        version: "1.0.0",
        collections: [...collections.keys()],
        views: [...views.keys()],
        artifacts: [...artifacts.keys()],
        processors: [...processors.keys(), ...derivations.keys()],
        triggers: [...triggers.keys()],
        mcp: null,
        search_profiles: ["default"],
        optional_search_profiles: [],
        retentions: [],
      },
      src: manifestSrc,
    },
    collections,
    searchProfiles: new Map(),
    models: {
      def: parseModels(new Def("conf/models.yaml", [], parts.models)),
      src: new Def("conf/models.yaml", [], {}),
    },
    rank: DEFAULT_RANK_CONF,
    processors,
    derivations,
    triggers,
    views,
    artifacts,
    mcp: null,
    defined,
  };
}

/** Runs `run` and checks it throws a definition error with this code, dotted path and file. */
export function expectDefinitionError(
  run: () => unknown,
  code: string,
  path: string,
  file?: string,
): DefinitionError {
  let caught: unknown;
  try {
    run();
  } catch (error) {
    caught = error;
  }
  expect(caught, "expected a definition error").toBeInstanceOf(DefinitionError);
  const error = caught as DefinitionError;
  expect({ code: error.code, path: error.extra.path }, error.message).toEqual({ code, path });
  if (file !== undefined) expect(error.extra.file).toBe(file);
  return error;
}

/** The value, or a test failure when it is missing. */
export function must<T>(value: T | undefined | null): T {
  if (value === undefined || value === null) throw new Error("expected a value");
  return value;
}
