// Enrichment processors (`processors/*.yaml`, a `processors:` list): background steps that
// annotate records of their input collections with a score, an embedding or a JSON value.
//
// Fields by kind (strict: any other key, or a key of another kind, is definition_invalid):
// | field         | score    | embedding | json     |
// |---------------|----------|-----------|----------|
// | name          | required | required  | required |
// | kind          | required | required  | required |
// | source        | optional, `llm` (the only source; the default)   |
// | input         | required {collections: [collection names]}       |
// | model         | required, model alias | required, embedding alias | required, model alias |
// | prompt        | required | -         | required |
// | scale         | required [min, max], min < max | - | -         |
// | default       | required, within scale | - | optional, must satisfy output_schema |
// | output_schema | -        | -         | required, JSON Schema 2020-12 |
// | description   | optional | optional  | optional |
//
// Link: the model alias exists in conf/models.yaml and has the right kind; every input
// collection names a collection (any version) listed by the package. The embedding alias of an
// embedding processor may differ from its collections' search profile (staging a new space).
import { ajv } from "../../platform/schema.js";
import {
  type CatalogIndex,
  type CollectionDef,
  type Def,
  type Entry,
  missingReference,
  NAME,
  NAME_HINT,
  type ProcessorDef,
  type ProcessorKind,
} from "../definition/index.js";

export const PROCESSOR_KINDS: readonly ProcessorKind[] = ["score", "embedding", "json"];

const COMMON = ["name", "kind", "source", "input", "model", "description"] as const;
const BY_KIND: Record<ProcessorKind, { allowed: string[]; required: string[] }> = {
  score: { allowed: ["prompt", "scale", "default"], required: ["prompt", "scale", "default"] },
  embedding: { allowed: [], required: [] },
  json: { allowed: ["prompt", "output_schema", "default"], required: ["prompt", "output_schema"] },
};

/**
 * A JSON Schema 2020-12 object (boolean schemas are refused), checked by compiling it with the
 * shared Ajv instance. The compiled schema is removed again so that a schema carrying an $id
 * can be loaded repeatedly.
 */
export function parseJsonSchema(src: Def): Record<string, unknown> {
  src.entries();
  const schema = src.value as Record<string, unknown>;
  try {
    ajv.compile(schema);
  } catch (error) {
    src.fail(`not a valid JSON Schema 2020-12: ${(error as Error).message}`);
  } finally {
    ajv.removeSchema(schema);
  }
  return schema;
}

/** A lowercase definition name. */
export function parseName(src: Def): string {
  return src.string({ pattern: NAME, patternHint: NAME_HINT });
}

/** A unique, non-empty list of collection names (unversioned). */
export function parseCollectionNames(src: Def, rule: { min?: number } = { min: 1 }): string[] {
  const names = src.strings({ min: rule.min, item: { pattern: NAME, patternHint: NAME_HINT } });
  return names;
}

/**
 * The listed collection versions named `name` (every listed version, active or not). Refuses a
 * name the package does not list: package_not_closed when some version of it is defined in the
 * upload, definition_unresolved when none is.
 */
export function resolveCollectionName(index: CatalogIndex, name: string, at: Def): Entry<CollectionDef>[] {
  const listed = [...index.collections.values()].filter((entry) => entry.def.name === name);
  if (listed.length > 0) return listed;
  const defined = [...index.defined.collections].find((id) => id.startsWith(`${name}@`));
  return missingReference(index, "collections", defined ?? name, at);
}

/** Checks that `alias` is an alias of conf/models.yaml of the wanted kind. */
export function checkAlias(index: CatalogIndex, alias: string, kind: "model" | "embedding", at: Def): void {
  // Own keys only: "constructor" is a valid name but no alias.
  const found = Object.hasOwn(index.models.def.aliases, alias) ? index.models.def.aliases[alias] : undefined;
  if (!found) at.fail(`no alias "${alias}" in conf/models.yaml`, "definition_unresolved");
  if (found.kind !== kind) {
    at.fail(
      kind === "model"
        ? `alias "${alias}" is an embedding alias; a model alias {targets, ...} is needed`
        : `alias "${alias}" is a model alias; an embedding alias {provider, model, dimensions, space} is needed`,
    );
  }
}

function parseScale(src: Def): [number, number] {
  const items = src.list({ min: 2, max: 2 });
  const min = (items[0] as Def).number();
  const max = (items[1] as Def).number();
  if (min >= max) src.fail(`scale [${min}, ${max}]: min must be below max`);
  return [min, max];
}

export function parseProcessor(src: Def): ProcessorDef {
  src.fields([...COMMON, ...new Set(Object.values(BY_KIND).flatMap((k) => k.allowed))], ["name", "kind"]);
  const name = parseName(src.at("name"));
  const kind = src.at("kind").oneOf(PROCESSOR_KINDS);
  const rule = BY_KIND[kind];
  for (const key of ["prompt", "scale", "default", "output_schema"]) {
    if (!rule.allowed.includes(key) && src.at(key).present)
      src.at(key).fail(`a ${kind} processor takes no ${key}`);
  }
  src.fields([...COMMON, ...rule.allowed], ["name", "kind", "input", "model", ...rule.required]);
  const input = src.at("input");
  input.fields(["collections"], ["collections"]);
  const scale = kind === "score" ? parseScale(src.at("scale")) : null;
  const outputSchema = kind === "json" ? parseJsonSchema(src.at("output_schema")) : null;
  let fallback: unknown = null;
  const defaultSrc = src.at("default").maybe();
  if (defaultSrc && scale) {
    fallback = defaultSrc.number();
    if ((fallback as number) < scale[0] || (fallback as number) > scale[1]) {
      defaultSrc.fail(`default ${fallback} is outside the scale [${scale[0]}, ${scale[1]}]`);
    }
  } else if (defaultSrc && outputSchema) {
    const validate = ajv.compile(outputSchema);
    ajv.removeSchema(outputSchema);
    if (!validate(defaultSrc.value)) {
      defaultSrc.fail(`default does not satisfy output_schema: ${ajv.errorsText(validate.errors)}`);
    }
    fallback = defaultSrc.value;
  }
  return {
    name,
    kind,
    source:
      src
        .at("source")
        .maybe()
        ?.oneOf(["llm"] as const) ?? "llm",
    input: { collections: parseCollectionNames(input.at("collections")) },
    scale,
    default: fallback,
    model: parseName(src.at("model")),
    prompt: rule.allowed.includes("prompt") ? src.at("prompt").string() : null,
    output_schema: outputSchema,
    description: src.at("description").maybe()?.string() ?? null,
  };
}

export function linkProcessor(def: ProcessorDef, src: Def, index: CatalogIndex): void {
  checkAlias(index, def.model, def.kind === "embedding" ? "embedding" : "model", src.at("model"));
  def.input.collections.forEach((name, i) => {
    resolveCollectionName(index, name, src.at("input").at("collections").at(i));
  });
}

/** The discovery entry of an enrichment processor (`GET /processors`): no prompt. */
export function processorSummary(def: ProcessorDef) {
  return {
    name: def.name,
    family: "enrichment" as const,
    kind: def.kind,
    source: def.source,
    input: { collections: [...def.input.collections] },
    scale: def.scale ? [...def.scale] : null,
    default: def.default,
    model: def.model,
    description: def.description,
  };
}
