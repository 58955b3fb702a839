// SKELETON (owned by the search-spec helper): the parameter model of views and artifacts.
import type { Def } from "./def.js";
import type { ValueType } from "./types.js";

export interface ParamDecl {
  type: ValueType;
  required: boolean;
  default?: unknown;
}

export function parseParameters(src: Def): Record<string, ParamDecl> {
  const out: Record<string, ParamDecl> = {};
  for (const [name, decl] of src.entries()) out[name] = { type: decl.at("type").string() as ValueType, required: false };
  return out;
}
