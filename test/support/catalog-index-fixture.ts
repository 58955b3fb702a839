// A hand-built CatalogIndex for unit tests of the catalog's link steps and search validation.
import { Def } from "../../src/catalog/definition/def.js";
import { DefinitionError } from "../../src/catalog/definition/definition-error.js";
import { DEFAULT_RANK_CONF } from "../../src/catalog/definition/rank.js";
import type { Entry, ValueType } from "../../src/catalog/definition/types.js";
import {
  type CatalogIndex,
  type CollectionDef,
  DEFAULT_BM25,
  type FieldDecl,
  type SearchProfileDef,
  type ViewDef,
} from "../../src/catalog/index.js";
import { AppError, type FieldError } from "../../src/platform/errors.js";

export function field(
  type: ValueType,
  flags: Partial<Omit<FieldDecl, "type">> = {},
  path?: string,
): FieldDecl {
  return { path: path ?? "x", type, filter: false, sort: false, return: false, project: false, ...flags };
}

const all = { filter: true, sort: true, return: true };

export function collection(name: string, version: number, extra: Partial<CollectionDef> = {}): CollectionDef {
  return {
    name,
    version,
    active: true,
    mode: "event",
    schema: { type: "object" },
    fields: {},
    required_processors: [],
    search_profile: "main",
    answerable: false,
    ...extra,
  };
}

function entry<T>(def: T, file = "fixture.yaml"): Entry<T> {
  return { def, src: new Def(file, [], def) };
}

/**
 * Collections: notes@1 (inactive) and notes@2 (active; adds "mood"), facts@1 (keyed),
 * archive@1 (inactive; profile "cold", no vector), edges@1, pages@1; hidden@1 is defined but not listed.
 * Profiles: main (embedding "embed"), cold (none). Processors: importance (score), summary (json).
 * Views: links@1 (active graph).
 */
export function buildIndex(
  mutate: (parts: { collections: CollectionDef[]; views: ViewDef[] }) => void = () => {},
): CatalogIndex {
  const noteFields: Record<string, FieldDecl> = {
    topic: field("string", all, "topic"),
    tags: field("string_array", { filter: true, return: true }, "tags"),
    priority: field("integer", all, "priority"),
    weight: field("number", { filter: true, sort: true }, "weight"),
    due: field("datetime", all, "due"),
    done: field("boolean", { filter: true }, "done"),
    secret: field("string", {}, "secret"),
  };
  const collections = [
    collection("notes", 1, {
      active: false,
      fields: noteFields,
      required_processors: ["importance", "summary"],
    }),
    collection("notes", 2, {
      fields: { ...noteFields, mood: field("string", all, "mood") },
      required_processors: ["importance", "summary"],
    }),
    collection("facts", 1, {
      mode: "keyed",
      fields: { topic: field("string", all, "topic"), priority: field("number", all, "priority") },
      required_processors: ["importance"],
    }),
    collection("archive", 1, {
      active: false,
      search_profile: "cold",
      fields: { topic: field("string", all, "topic") },
    }),
    collection("edges", 1, {
      fields: {
        subject: field("string", all, "subject"),
        object: field("string", all, "object"),
        predicate: field("string", all, "predicate"),
      },
    }),
    collection("pages", 1, { mode: "keyed" }),
  ];
  const views: ViewDef[] = [
    {
      name: "links",
      version: 1,
      active: true,
      kind: "graph",
      parameters: {},
      required_capabilities: [],
      graph: { edges: "edges", subject: "subject", object: "object", predicate: "predicate" },
    },
  ];
  mutate({ collections, views });
  const profiles: SearchProfileDef[] = [
    {
      name: "main",
      engine: "postgres",
      embedding: "embed",
      text_config: "english",
      text_rank: DEFAULT_BM25,
    },
    {
      name: "cold",
      engine: "postgres",
      embedding: null,
      text_config: "english",
      text_rank: DEFAULT_BM25,
    },
  ];
  return {
    manifest: entry({
      name: "test",
      version: "1.0.0",
      collections: collections.map((c) => `${c.name}@${c.version}`),
      views: views.map((v) => `${v.name}@${v.version}`),
      artifacts: [],
      processors: ["importance", "summary"],
      triggers: [],
      mcp: null,
      search_profiles: ["main", "cold"],
      optional_search_profiles: [],
      retentions: [],
    }),
    collections: new Map(collections.map((c) => [`${c.name}@${c.version}`, entry(c)])),
    searchProfiles: new Map(profiles.map((p) => [p.name, entry(p)])),
    models: entry({
      providers: {},
      aliases: {
        embed: { kind: "embedding", provider: "fake", model: "e", dimensions: 8, space: "s1" },
        judge: { kind: "model", targets: ["fake:m"], params: {}, context_tokens: null },
      },
      defaults: {},
    }),
    rank: DEFAULT_RANK_CONF,
    processors: new Map([
      ["importance", entry({ name: "importance", kind: "score" } as never)],
      ["summary", entry({ name: "summary", kind: "json" } as never)],
    ]),
    derivations: new Map(),
    triggers: new Map(),
    views: new Map(views.map((v) => [`${v.name}@${v.version}`, entry(v)])),
    artifacts: new Map(),
    mcp: null,
    defined: {
      collections: new Set([...collections.map((c) => `${c.name}@${c.version}`), "hidden@1"]),
      views: new Set(views.map((v) => `${v.name}@${v.version}`)),
      artifacts: new Set(),
      processors: new Set(["importance", "summary"]),
      derivations: new Set(),
      triggers: new Set(),
      search_profiles: new Set(["main", "cold"]),
      mcp: new Set(),
    },
  };
}

/** Runs fn and returns the DefinitionError it throws (fails the test otherwise). */
export function definitionError(fn: () => unknown): DefinitionError {
  try {
    fn();
  } catch (error) {
    if (error instanceof DefinitionError) return error;
    throw error;
  }
  throw new Error("expected a DefinitionError, but nothing was thrown");
}

/** Runs fn and returns the 422 request_schema error it throws, with its {path, message} list. */
export function requestError(fn: () => unknown): { error: AppError; errors: FieldError[]; paths: string[] } {
  try {
    fn();
  } catch (error) {
    if (error instanceof AppError && error.code === "request_schema") {
      const errors = (error.extra.errors ?? []) as FieldError[];
      return { error, errors, paths: errors.map((e) => e.path) };
    }
    throw error;
  }
  throw new Error("expected a request_schema error, but nothing was thrown");
}
