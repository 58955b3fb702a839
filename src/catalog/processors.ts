// SKELETON (owned by the families helper).
import type { Def } from "./def.js";
import type { CatalogIndex } from "./index-types.js";

export interface ProcessorDef {
  name: string;
}

export function parseProcessor(src: Def): ProcessorDef {
  return { name: src.at("name").string() };
}

export function linkProcessor(_def: ProcessorDef, _src: Def, _index: CatalogIndex): void {}
