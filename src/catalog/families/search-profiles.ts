import {
  BM25_LIMITS,
  type CatalogIndex,
  DEFAULT_BM25,
  type Def,
  describe,
  NAME,
  NAME_HINT,
  type SearchProfileDef,
  TEXT_RANK_KINDS,
  type TextRank,
} from "../definition/index.js";
import { checkAlias } from "./processors.js";

const TEXT_CONFIG = /^[a-z_][a-z0-9_]*$/;

function defaultTextRank(): TextRank {
  return { ...DEFAULT_BM25 };
}

/**
 * text_rank: `bm25` (k1 1.2, b 0.75), `ts_rank_cd`, or a mapping `{kind: bm25, k1?, b?}` /
 * `{kind: ts_rank_cd}`. Omitted: bm25 with its defaults.
 */
export function parseTextRank(src: Def): TextRank {
  if (!src.present) return defaultTextRank();
  if (typeof src.value === "string") {
    return src.oneOf(TEXT_RANK_KINDS) === "ts_rank_cd" ? { kind: "ts_rank_cd" } : defaultTextRank();
  }
  if (src.value === null || typeof src.value !== "object" || Array.isArray(src.value)) {
    src.fail(`expected bm25, ts_rank_cd or a mapping {kind, k1, b}, got ${describe(src.value)}`);
  }
  src.fields(["kind", "k1", "b"], ["kind"]);
  if (src.at("kind").oneOf(TEXT_RANK_KINDS) === "ts_rank_cd") {
    for (const key of ["k1", "b"]) {
      src.at(key).maybe()?.fail(`${key} applies to kind bm25 only, not ts_rank_cd`);
    }
    return { kind: "ts_rank_cd" };
  }
  return {
    kind: "bm25",
    k1: src.at("k1").maybe()?.number(BM25_LIMITS.k1) ?? DEFAULT_BM25.k1,
    b: src.at("b").maybe()?.number(BM25_LIMITS.b) ?? DEFAULT_BM25.b,
  };
}

export function parseSearchProfile(src: Def): SearchProfileDef {
  src.fields(["name", "engine", "embedding", "text_config", "text_rank", "description"], ["name"]);
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
    text_rank: parseTextRank(src.at("text_rank")),
  };
}

export function linkSearchProfile(def: SearchProfileDef, src: Def, index: CatalogIndex): void {
  if (def.embedding !== null) checkAlias(index, def.embedding, "embedding", src.at("embedding"));
}
