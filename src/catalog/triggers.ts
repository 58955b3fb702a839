// SKELETON (owned by the families helper).
import type { Def } from "./def.js";
import type { CatalogIndex } from "./index-types.js";

export interface TriggerDef {
  name: string;
}

export function parseTrigger(src: Def): TriggerDef {
  return { name: src.at("name").string() };
}

export function linkTrigger(_def: TriggerDef, _src: Def, _index: CatalogIndex): void {}
