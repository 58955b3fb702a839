import { hashJson } from "../../platform/hash.js";
import {
  type CatalogIndex,
  type CollectionDef,
  type Def,
  type FieldDecl,
  missingReference,
  NAME,
  NAME_HINT,
  VALUE_TYPES,
} from "../definition/index.js";
import { SEARCH_BOUNDS } from "../search-spec/index.js";
import { parseJsonSchema } from "./processors.js";

const FIELD_PATH = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

function parseField(src: Def): FieldDecl {
  src.fields(["path", "type", "filter", "sort", "return", "project", "description"], ["path", "type"]);
  src.at("description").maybe()?.string();
  return {
    path: src
      .at("path")
      .string({ pattern: FIELD_PATH, patternHint: "a dotted path into content (customer.tier)" }),
    type: src.at("type").oneOf(VALUE_TYPES),
    filter: src.at("filter").maybe()?.boolean() ?? false,
    sort: src.at("sort").maybe()?.boolean() ?? false,
    return: src.at("return").maybe()?.boolean() ?? false,
    project: src.at("project").maybe()?.boolean() ?? false,
  };
}

function parseSchema(src: Def): Record<string, unknown> {
  const schema = parseJsonSchema(src);
  if (schema.type !== undefined && schema.type !== "object") {
    src.at("type").fail('record content is an object: the schema type must be "object"');
  }
  return schema;
}

export function parseCollection(src: Def): CollectionDef {
  src.fields(
    [
      "name",
      "version",
      "active",
      "mode",
      "schema",
      "fields",
      "required_processors",
      "search_profile",
      "answerable",
      "description",
    ],
    ["name", "version", "mode", "schema", "search_profile"],
  );
  src.at("description").maybe()?.string();
  const fields: Record<string, FieldDecl> = {};
  for (const [name, field] of src.at("fields").maybe()?.entries() ?? []) {
    if (!NAME.test(name)) field.fail(`field name "${name}" is not ${NAME_HINT}`);
    fields[name] = parseField(field);
  }
  return {
    name: src.at("name").string({ pattern: NAME, patternHint: NAME_HINT }),
    version: src.at("version").integer({ min: 1 }),
    active: src.at("active").maybe()?.boolean() ?? false,
    mode: src.at("mode").oneOf(["event", "keyed", "mixed"] as const),
    schema: parseSchema(src.at("schema")),
    fields,
    required_processors: src.at("required_processors").maybe()?.strings() ?? [],
    search_profile: src.at("search_profile").string({ pattern: NAME, patternHint: NAME_HINT }),
    answerable: src.at("answerable").maybe()?.boolean() ?? false,
  };
}

export function linkCollection(def: CollectionDef, src: Def, index: CatalogIndex): void {
  def.required_processors.forEach((name, i) => {
    if (!index.processors.has(name))
      missingReference(index, "processors", name, src.at("required_processors").at(i));
  });
  // docs/catalog.md, "Package manifests": a collection's search_profile is a required profile.
  if (!index.manifest.def.search_profiles.includes(def.search_profile)) {
    if (index.defined.search_profiles.has(def.search_profile)) {
      src
        .at("search_profile")
        .fail(
          `search profile "${def.search_profile}" must be listed under the package's search_profiles`,
          "package_not_closed",
        );
    }
    missingReference(index, "search_profiles", def.search_profile, src.at("search_profile"));
  }
  // POST /answer searches each profile of the answerable collections and fuses them as sources.
  if (def.active && def.answerable) {
    const profiles = new Set(
      [...index.collections.values()]
        .filter((entry) => entry.def.active && entry.def.answerable)
        .map((entry) => entry.def.search_profile),
    );
    if (profiles.size > SEARCH_BOUNDS.sources) {
      src
        .at("answerable")
        .fail(
          `the answerable collections span ${profiles.size} search profiles; an answer fuses at most ${SEARCH_BOUNDS.sources}`,
        );
    }
  }
}

/**
 * The contract stored records keep: what interprets their content (mode, schema, declared
 * field paths and types). Bindings (processors, profile, answerable, field flags) are not part
 * of it, so changing them never touches stored records.
 */
export function contractOf(def: CollectionDef) {
  return {
    name: def.name,
    version: def.version,
    mode: def.mode,
    schema: def.schema,
    fields: Object.fromEntries(
      Object.entries(def.fields).map(([name, f]) => [name, { path: f.path, type: f.type }]),
    ),
  };
}

export function contractHash(def: CollectionDef): string {
  return hashJson(contractOf(def));
}

/** The value a declared field's dotted path reads from record content (undefined when absent). */
export function fieldValue(content: Record<string, unknown>, path: string): unknown {
  let value: unknown = content;
  for (const part of path.split(".")) {
    if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}
