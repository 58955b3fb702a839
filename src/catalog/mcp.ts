// SKELETON (owned by the families helper).
import type { Def } from "./def.js";
import type { CatalogIndex } from "./index-types.js";

export interface McpInterfaceDef {
  name: string;
  version: number;
}

export function parseMcpInterface(src: Def): McpInterfaceDef {
  return { name: src.at("name").string(), version: src.at("version").integer({ min: 1 }) };
}

export function linkMcpInterface(_def: McpInterfaceDef, _src: Def, _index: CatalogIndex): void {}
