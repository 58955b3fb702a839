// What a record contributes to the full-text index: its text and the values of the fields its
// collection declares with project: true, in the search profile's text configuration.
import { type CollectionDef, fieldValue, type LoadedCatalog } from "../catalog/index.js";

export function searchDocument(
  text: string,
  content: Record<string, unknown>,
  collection: CollectionDef,
): string {
  const projected = Object.values(collection.fields)
    .filter((field) => field.project)
    .flatMap((field) => {
      const value = fieldValue(content, field.path);
      if (value === undefined || value === null) return [];
      return Array.isArray(value) ? value.map(String) : [String(value)];
    });
  return [text, ...projected].join("\n");
}

export function textConfig(catalog: LoadedCatalog, collection: CollectionDef): string {
  return catalog.index.searchProfiles.get(collection.search_profile)?.def.text_config ?? "english";
}
