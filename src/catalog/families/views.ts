// View definitions (docs/catalog.md, "Views") and their load checks.
//
// Choices made where docs/catalog.md is brief:
// - Graph kinds imply their fixed parameters: `parameters` may be left out, or may declare some
//   or all of them; a declared one must keep the fixed type and bounds and may only add a
//   description, an item_enum on predicates, and (graph_orphans) its own default for limit.
// - graph mappings name declared fields of the edges collection (default subject, object,
//   predicate), which every listed version of it must declare as strings. graph_orphans also
//   names its nodes collection.
// - A placeholder must sit in a value (never in a key) and name a declared parameter; an unknown
//   one is definition_unresolved. The rendered query's problems are definition_invalid at
//   "<view>.query.<path>".
import { AppError, type FieldError } from "../../platform/errors.js";
import {
  CAPABILITIES,
  type CatalogIndex,
  compactParameters,
  type Def,
  DefinitionError,
  type Entry,
  type GraphMapping,
  missingReference,
  NAME,
  NAME_HINT,
  type ParamDecl,
  parametersInputSchema,
  parseParameters,
  profileCapabilities,
  ref,
  sampleArguments,
  type ViewDef,
  validateArguments,
  valueProblem,
} from "../definition/index.js";
import {
  type SearchLimits,
  type SearchSpec,
  searchParts,
  targetProfiles,
  validateSearchSpec,
} from "../search-spec/index.js";
import { resolveCollectionName } from "./processors.js";

const VIEW_KEYS = [
  "name",
  "version",
  "active",
  "description",
  "kind",
  "parameters",
  "query",
  "required_capabilities",
  "graph",
] as const;

const GRAPH_PARAMS: Record<string, ParamDecl> = {
  seed: { type: "string", required: true, min_length: 1, max_length: 128 },
  predicates: { type: "string_array", required: false, default: [] },
  direction: { type: "string", required: false, enum: ["out", "in", "both"], default: "out" },
  depth: { type: "integer", required: false, minimum: 1, maximum: 16, default: 1 },
  limit: { type: "integer", required: false, minimum: 1, maximum: 500, default: 20 },
};
const ORPHAN_PARAMS: Record<string, ParamDecl> = {
  limit: { type: "integer", required: false, minimum: 1, maximum: 500, default: 20 },
};

/** The fixed parameters of a graph kind, with what the definition may add to them. */
function graphParameters(kind: "graph" | "graph_orphans", src: Def): Record<string, ParamDecl> {
  const fixed = kind === "graph" ? GRAPH_PARAMS : ORPHAN_PARAMS;
  const declared = parseParameters(src);
  const out: Record<string, ParamDecl> = structuredClone(fixed);
  for (const [name, decl] of Object.entries(declared)) {
    const at = src.at(name);
    const canonical = Object.hasOwn(fixed, name)
      ? (fixed[name] as ParamDecl)
      : at.fail(`${kind} views have exactly the parameters ${Object.keys(fixed).join(", ")}`);
    const target = out[name] as ParamDecl;
    for (const key of new Set(["required", ...Object.keys(at.value as object)])) {
      const value = decl[key as keyof ParamDecl];
      if (key === "description") target.description = value as string;
      else if (key === "item_enum" && name === "predicates") target.item_enum = value as string[];
      else if (key === "default" && kind === "graph_orphans") target.default = value;
      else if (JSON.stringify(value) !== JSON.stringify(canonical[key as keyof ParamDecl])) {
        at.at(key).fail(
          `the ${kind} parameter ${name} is fixed: ${key} ${
            canonical[key as keyof ParamDecl] === undefined
              ? "is not allowed"
              : `must be ${JSON.stringify(canonical[key as keyof ParamDecl])}`
          }`,
        );
      }
    }
    const problem = target.default === undefined ? undefined : valueProblem(target, target.default);
    if (problem) at.at("default").fail(`the default ${problem}`);
  }
  return out;
}

function parseGraph(kind: "graph" | "graph_orphans", src: Def): GraphMapping {
  src.fields(
    kind === "graph"
      ? ["edges", "subject", "object", "predicate"]
      : ["edges", "subject", "object", "predicate", "nodes"],
    kind === "graph" ? ["edges"] : ["edges", "nodes"],
  );
  const mapping: GraphMapping = {
    edges: src.at("edges").string(),
    subject: src.at("subject").maybe()?.string() ?? "subject",
    object: src.at("object").maybe()?.string() ?? "object",
    predicate: src.at("predicate").maybe()?.string() ?? "predicate",
  };
  if (kind === "graph_orphans") mapping.nodes = src.at("nodes").string();
  return mapping;
}

export function parseView(src: Def): ViewDef {
  src.fields(VIEW_KEYS, ["name", "version"]);
  const kind =
    src
      .at("kind")
      .maybe()
      ?.oneOf(["search", "graph", "graph_orphans"] as const) ?? "search";
  const view: ViewDef = {
    name: src
      .at("name")
      // Manifests, artifacts and MCP tools reference views as name@version (VERSIONED_REF), so a
      // view name follows the same lowercase rule as every other definition name.
      .string({ pattern: NAME, patternHint: NAME_HINT }),
    version: src.at("version").integer({ min: 1 }),
    active: src.at("active").maybe()?.boolean() ?? false,
    kind,
    parameters: {},
    required_capabilities: [],
  };
  const description = src.at("description").maybe();
  if (description) view.description = description.string();
  if (kind === "search") {
    view.parameters = parseParameters(src.at("parameters"));
    const query = src.at("query");
    if (!query.present) query.fail("is required for a search view");
    if (query.value === null || typeof query.value !== "object" || Array.isArray(query.value)) {
      query.fail("expected a mapping: the search request template");
    }
    view.query = structuredClone(query.value as Record<string, unknown>);
    const capabilities = src.at("required_capabilities").maybe();
    if (capabilities) {
      capabilities.strings();
      view.required_capabilities = capabilities.list().map((item) => item.oneOf(CAPABILITIES));
    }
    if (src.at("graph").present) src.at("graph").fail("only graph and graph_orphans views take a graph");
  } else {
    for (const key of ["query", "required_capabilities"] as const) {
      if (src.at(key).present) src.at(key).fail(`only search views take ${key}`);
    }
    view.parameters = graphParameters(kind, src.at("parameters"));
    view.graph = parseGraph(kind, src.at("graph"));
  }
  return view;
}

const WHOLE = /^\{\{\s*([^{}]*?)\s*\}\}$/;
const ANY = /\{\{\s*([^{}]*?)\s*\}\}/g;
const REMOVE = Symbol("remove");

/** A parameter value as text inside a longer string (lists joined by ","). */
export function valueText(value: unknown): string {
  if (Array.isArray(value)) return value.map(valueText).join(",");
  return typeof value === "string" ? value : String(value);
}

/**
 * Fills a template (docs/catalog.md, "Parameters"). A string that is exactly one placeholder
 * becomes the typed value; an absent argument removes the key (or list item) holding it, and a
 * mapping or list that this leaves empty is removed in turn (so `where: {topic: {eq:
 * "{{topic}}"}}` drops the whole filter when topic is omitted). A placeholder inside a longer
 * string becomes the value's text (lists joined by ","; an absent argument becomes "").
 */
export function fillTemplate(template: unknown, args: Record<string, unknown>): unknown {
  // Own keys only: a placeholder named like an Object member (constructor) is an absent argument.
  const arg = (name: string): unknown => (Object.hasOwn(args, name) ? args[name] : undefined);
  const fill = (value: unknown): unknown => {
    if (typeof value === "string") {
      const whole = WHOLE.exec(value);
      if (whole) {
        const found = arg(whole[1] as string);
        return found === undefined ? REMOVE : structuredClone(found);
      }
      return value.replace(ANY, (_, name: string) => {
        const found = arg(name);
        return found === undefined ? "" : valueText(found);
      });
    }
    if (Array.isArray(value)) {
      const items = value.map(fill).filter((item) => item !== REMOVE);
      return items.length === 0 && value.length > 0 ? REMOVE : items;
    }
    if (value !== null && typeof value === "object") {
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) {
        const filled = fill(item);
        if (filled !== REMOVE) out[key] = filled;
      }
      return Object.keys(out).length === 0 && Object.keys(value).length > 0 ? REMOVE : out;
    }
    return value;
  };
  const filled = fill(template);
  return filled === REMOVE ? {} : filled;
}

/** Every placeholder of a template names a declared parameter and sits in a value. */
function checkPlaceholders(value: unknown, at: Def, params: Record<string, ParamDecl>): void {
  if (typeof value === "string") {
    for (const match of value.matchAll(ANY)) {
      const name = match[1] as string;
      if (!Object.hasOwn(params, name)) {
        at.fail(`placeholder {{${name}}} names no declared parameter`, "definition_unresolved");
      }
    }
  } else if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) checkPlaceholders(item, at.at(i), params);
  } else if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      if (key.includes("{{")) at.at(key).fail("placeholders are only allowed in values, not in keys");
      checkPlaceholders(item, at.at(key), params);
    }
  }
}

/** Resolves the collections and pinned versions a rendered query names, by catalog reference rules. */
function checkQueryCollections(filled: unknown, at: Def, index: CatalogIndex): void {
  const scopes: [unknown, Def][] = [];
  const root = filled as Record<string, unknown>;
  scopes.push([root.scope, at.at("scope")]);
  if (Array.isArray(root.sources)) {
    root.sources.forEach((source, i) => {
      if (source && typeof source === "object")
        scopes.push([(source as Record<string, unknown>).scope, at.at("sources").at(i).at("scope")]);
    });
  }
  for (const [scope, scopeAt] of scopes) {
    if (!scope || typeof scope !== "object") continue;
    const { collections, collection_versions: pinned } = scope as Record<string, unknown>;
    if (Array.isArray(collections)) {
      collections.forEach((name, i) => {
        if (typeof name === "string") resolveCollectionName(index, name, scopeAt.at("collections").at(i));
      });
    }
    if (pinned && typeof pinned === "object" && !Array.isArray(pinned)) {
      for (const [name, versions] of Object.entries(pinned)) {
        // Names outside scope.collections are refused by the search validation below.
        if (!Array.isArray(versions) || !Array.isArray(collections) || !collections.includes(name)) continue;
        versions.forEach((version, j) => {
          if (typeof version !== "number") return;
          const id = ref(name, version);
          if (!index.collections.has(id)) {
            missingReference(index, "collections", id, scopeAt.at("collection_versions").at(name).at(j));
          }
        });
      }
    }
  }
}

function errorPath(at: Def, path: string): Def {
  let out = at;
  if (path === "") return out;
  for (const segment of path.split(".")) out = out.at(/^\d+$/.test(segment) ? Number(segment) : segment);
  return out;
}

/** The view's query rendered with sample arguments and validated (the load check). */
function sampleSearch(view: ViewDef, index: CatalogIndex): SearchSpec {
  const filled = fillTemplate(view.query, sampleArguments(view.parameters));
  return validateSearchSpec(filled, index, { maxQueryChars: Number.MAX_SAFE_INTEGER });
}

function linkGraph(view: ViewDef, src: Def, index: CatalogIndex): void {
  const graph = view.graph as GraphMapping;
  const at = src.at("graph");
  const edges = resolveCollectionName(index, graph.edges, at.at("edges"));
  for (const role of ["subject", "object", "predicate"] as const) {
    for (const { def } of edges) {
      const field = Object.hasOwn(def.fields, graph[role]) ? def.fields[graph[role]] : undefined;
      if (field?.type !== "string") {
        at.at(role).fail(
          `collection ${ref(def.name, def.version)} declares no string field "${graph[role]}"`,
        );
      }
    }
  }
  if (graph.nodes !== undefined) resolveCollectionName(index, graph.nodes, at.at("nodes"));
}

/** The load checks of a view against the selected catalog (docs/catalog.md, "Views"). */
export function linkView(view: ViewDef, src: Def, index: CatalogIndex): void {
  if (view.kind !== "search") {
    linkGraph(view, src, index);
    return;
  }
  const queryAt = src.at("query");
  // explain is the caller's debugging option (POST /views/{name}/query?explain=true), never
  // fixed by a definition: a view's answer keeps the same shape for every caller.
  if (view.query && Object.hasOwn(view.query, "explain")) {
    queryAt
      .at("explain")
      .fail("a view does not fix explain: a caller asks for it with POST /views/{name}/query?explain=true");
  }
  checkPlaceholders(view.query, queryAt, view.parameters);
  checkQueryCollections(fillTemplate(view.query, sampleArguments(view.parameters)), queryAt, index);
  let spec: SearchSpec;
  try {
    spec = sampleSearch(view, index);
  } catch (error) {
    const first =
      error instanceof AppError ? (error.extra.errors as FieldError[] | undefined)?.[0] : undefined;
    if (!first) throw error;
    const more = ((error as AppError).extra.errors as FieldError[]).length - 1;
    errorPath(queryAt, first.path).fail(
      `the query rendered with sample parameters is not a valid search request: ${first.path ? `${first.path} ` : ""}${first.message}${more > 0 ? ` (and ${more} more problems)` : ""}`,
    );
  }
  view.required_capabilities.forEach((capability, i) => {
    for (const part of searchParts(spec)) {
      const profile = index.searchProfiles.get(part.profile);
      if (profile && !profileCapabilities(profile.def).has(capability)) {
        src
          .at("required_capabilities")
          .at(i)
          .fail(`search profile "${part.profile}" does not offer the ${capability} capability`);
      }
    }
  });
}

/**
 * The search a view call runs: arguments validated (422 request_schema), the template filled,
 * and the finished request validated a second time.
 */
export function viewSearch(
  view: ViewDef,
  args: unknown,
  index: CatalogIndex,
  limits: SearchLimits,
): { parameters: Record<string, unknown>; spec: SearchSpec } {
  const parameters = validateArguments(view.parameters, args);
  return { parameters, spec: validateSearchSpec(fillTemplate(view.query, parameters), index, limits) };
}

/** Collections and profiles a view reads (by name), for discovery. */
export function viewReads(view: ViewDef, index: CatalogIndex): { collections: string[]; profiles: string[] } {
  const collections = new Set<string>();
  const profiles = new Set<string>();
  if (view.kind === "search") {
    try {
      for (const part of searchParts(sampleSearch(view, index))) {
        for (const profile of targetProfiles(part.targets, index)) profiles.add(profile);
        for (const target of part.targets) collections.add(target.name);
      }
    } catch (error) {
      if (!(error instanceof AppError) || error instanceof DefinitionError) throw error;
    }
  } else if (view.graph) {
    for (const name of [view.graph.edges, view.graph.nodes]) {
      if (name === undefined) continue;
      collections.add(name);
      for (const { def } of index.collections.values())
        if (def.name === name) profiles.add(def.search_profile);
    }
  }
  return { collections: [...collections].sort(), profiles: [...profiles].sort() };
}

/** A view's entry in `GET /views` (docs/api.md, "Catalog reads"); hash from the caller. */
export function viewDiscoveryEntry(
  entry: Entry<ViewDef>,
  index: CatalogIndex,
  hash: string,
): Record<string, unknown> {
  const view = entry.def;
  const reads = viewReads(view, index);
  return {
    name: view.name,
    version: view.version,
    hash,
    active: view.active,
    kind: view.kind,
    parameters: compactParameters(view.parameters),
    input_schema: parametersInputSchema(view.parameters),
    collections: reads.collections,
    required_capabilities: [...view.required_capabilities],
    profiles: reads.profiles,
  };
}
