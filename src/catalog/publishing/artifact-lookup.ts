// Which artifact a request names (render, snapshot, use, promote): the active listed version.
import { AppError } from "../../platform/errors.js";
import type { ArtifactDef } from "../definition/index.js";
import type { InstalledCatalog } from "./load.js";

export interface ResolvedArtifact {
  /** name@version */
  id: string;
  def: ArtifactDef;
  /** The loaded definition's hash. */
  hash: string;
}

/** The active version of the named artifact; unknown or inactive is 404 artifact_not_found. */
export function activeArtifact(catalog: InstalledCatalog, name: string): ResolvedArtifact {
  for (const [id, entry] of catalog.index.artifacts) {
    if (entry.def.name === name && entry.def.active) {
      return { id, def: entry.def, hash: catalog.hashes[`artifacts:${id}`] as string };
    }
  }
  throw new AppError("artifact_not_found", `no active artifact "${name}" in the workspace catalog`);
}

/** A listed artifact version by reference (learning targets name one). */
export function listedArtifact(catalog: InstalledCatalog, id: string): ResolvedArtifact {
  const entry = catalog.index.artifacts.get(id);
  if (!entry) throw new AppError("artifact_not_found", `no artifact ${id} in the workspace catalog`);
  return { id, def: entry.def, hash: catalog.hashes[`artifacts:${id}`] as string };
}
