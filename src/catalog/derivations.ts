// SKELETON (owned by the families helper).
import type { Def } from "./def.js";
import type { CatalogIndex } from "./index-types.js";

export interface DerivationDef {
  name: string;
}

export function parseDerivation(src: Def): DerivationDef {
  return { name: src.at("name").string() };
}

export function linkDerivation(_def: DerivationDef, _src: Def, _index: CatalogIndex): void {}
