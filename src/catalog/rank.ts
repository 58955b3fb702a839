// SKELETON (owned by the search-spec helper): rank expression grammar and conf/rank.yaml.
import type { Def } from "./def.js";

export type SearchMode = "vector" | "text" | "hybrid" | "recent" | "structured";
export type RankNode = readonly unknown[];

export interface RankConf {
  candidates: number;
  formulas: Record<Exclude<SearchMode, "structured">, RankNode>;
}

export const DEFAULT_RANK_CONF: RankConf = { candidates: 200, formulas: {} as RankConf["formulas"] };

export function parseRankConf(src: Def): RankConf {
  src.fields(["candidates", "formulas"]);
  return DEFAULT_RANK_CONF;
}
