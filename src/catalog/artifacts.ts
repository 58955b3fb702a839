// SKELETON (owned by the families helper).
import type { Def } from "./def.js";
import type { CatalogIndex } from "./index-types.js";

export interface ArtifactDef {
  name: string;
}

export function parseArtifact(src: Def): ArtifactDef {
  return { name: src.at("name").string() };
}

export function linkArtifact(_def: ArtifactDef, _src: Def, _index: CatalogIndex): void {}
