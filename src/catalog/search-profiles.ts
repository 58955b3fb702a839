import type { Def } from "./def.js";
import type { CatalogIndex } from "./index-types.js";
import { NAME, NAME_HINT } from "./names.js";
import { checkAlias } from "./processors.js";
import type { SearchProfileDef } from "./types.js";

const TEXT_CONFIG = /^[a-z_][a-z0-9_]*$/;

export function parseSearchProfile(src: Def): SearchProfileDef {
  src.fields(["name", "engine", "embedding", "text_config", "description"], ["name"]);
  src.at("description").maybe()?.string();
  return {
    name: src.at("name").string({ pattern: NAME, patternHint: NAME_HINT }),
    engine:
      src
        .at("engine")
        .maybe()
        ?.oneOf(["postgres"] as const) ?? "postgres",
    embedding: src.at("embedding").maybe()?.string({ pattern: NAME, patternHint: NAME_HINT }) ?? null,
    text_config:
      src
        .at("text_config")
        .maybe()
        ?.string({ pattern: TEXT_CONFIG, patternHint: "a text search configuration name" }) ?? "english",
  };
}

export function linkSearchProfile(def: SearchProfileDef, src: Def, index: CatalogIndex): void {
  if (def.embedding !== null) checkAlias(index, def.embedding, "embedding", src.at("embedding"));
}
