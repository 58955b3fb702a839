// SKELETON (owned by the search-spec helper): view definitions and load checks.
import type { Def } from "./def.js";
import type { CatalogIndex } from "./index-types.js";

export interface ViewDef {
  name: string;
  version: number;
  active: boolean;
  kind: "search" | "graph" | "graph_orphans";
}

export function parseView(src: Def): ViewDef {
  return {
    name: src.at("name").string(),
    version: src.at("version").integer({ min: 1 }),
    active: src.at("active").maybe()?.boolean() ?? false,
    kind: src.at("kind").maybe()?.oneOf(["search", "graph", "graph_orphans"] as const) ?? "search",
  };
}

export function linkView(_view: ViewDef, _src: Def, _index: CatalogIndex): void {}
