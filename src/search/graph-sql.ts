// SQL of graph views (graph.ts decides what a walk reads): the walkable links of a workspace or of
// a walk's frontier, and the current nodes no link names. Both hold one rule of which records
// count (graph.ts's header): current, active, and for a produced link, live.
import type { CollectionDef, GraphMapping } from "../catalog/index.js";
import { collectionVersionSql, fieldValueSql } from "./field-sql.js";
import type { Params } from "./sql.js";

/** Which ends of a link a walk follows from its frontier. */
export type Direction = "out" | "in" | "both";

/** A text value at a field's declared path per collection version; null when not a string. */
function fieldSql(params: Params, versions: CollectionDef[], field: string): string {
  const arms = versions.flatMap((def) => {
    const declared = Object.hasOwn(def.fields, field) ? def.fields[field] : undefined;
    if (!declared) return [];
    const json = `(r.content #> ${params.add(declared.path.split("."))}::text[])`;
    return [
      `WHEN r.collection_version = ${params.add(def.version)}::int THEN CASE WHEN jsonb_typeof(${json}) = 'string' THEN ${json} #>> '{}' END`,
    ];
  });
  // A searched CASE: Citus mangles a simple one (`CASE x WHEN …`) on its way to the shard (erasure/sql.ts).
  return arms.length ? `CASE ${arms.join(" ")} END` : "NULL::text";
}

/**
 * Visibility of a record as current state: ready, active, not a tombstone, the head of its slot.
 * `ws` is the statement's workspace parameter (Params.workspace), here as in LIVE.
 */
const currentActive = (ws: string) => `r.ready AND r.status = 'active' AND NOT r.tombstone
    AND (r.key IS NULL OR EXISTS (SELECT 1 FROM heads h WHERE h.workspace_id = ${ws} AND h.entity = r.entity
      AND h.collection = r.collection AND h.key = r.key AND h.status = 'active' AND h.record_id = r.id))`;

/** A produced link's liveness: one derived_from parent is still current (see the header). */
const live = (
  ws: string,
) => `(r.run_id IS NULL OR EXISTS (SELECT 1 FROM records p WHERE p.workspace_id = ${ws}
      AND p.id = ANY(r.derived_from) AND NOT p.tombstone
      AND (p.key IS NULL OR EXISTS (SELECT 1 FROM heads ph WHERE ph.workspace_id = ${ws} AND ph.entity = p.entity
        AND ph.collection = p.collection AND ph.key = p.key AND ph.status = p.status AND ph.record_id = p.id))))`;

/** The links of the listed versions of the edges collection. */
export function versionsSql(params: Params, edges: string, versions: CollectionDef[]): string {
  return `r.collection = ${params.add(edges)} AND r.collection_version = ANY(${params.add(versions.map((def) => def.version))}::int[])`;
}

/**
 * The walkable links in `scope` (versionsSql or touchingSql): each with its subject, object and
 * predicate read at the declared paths, both ends present, predicates filtered when given.
 */
export function linksSql(
  params: Params,
  read: {
    workspaceId: string;
    versions: CollectionDef[];
    mapping: GraphMapping;
    scope: string;
    predicates: string[];
  },
): string {
  const { versions, mapping } = read;
  const filters = ["e.subject IS NOT NULL", "e.object IS NOT NULL"];
  const sql = `SELECT e.* FROM (
    SELECT r.id, r.collection_version, r.text, r.content,
      ${fieldSql(params, versions, mapping.subject)} AS subject,
      ${fieldSql(params, versions, mapping.object)} AS object,
      ${fieldSql(params, versions, mapping.predicate)} AS predicate
    FROM records r
    WHERE r.workspace_id = ${params.workspace(read.workspaceId)} AND ${read.scope}
      AND ${currentActive(params.workspace(read.workspaceId))}
      AND ${live(params.workspace(read.workspaceId))}
  ) e`;
  if (read.predicates.length) filters.push(`e.predicate = ANY(${params.add(read.predicates)}::text[])`);
  return `${sql} WHERE ${filters.join(" AND ")}`;
}

/**
 * Links of the listed versions whose subject or object (by direction) is one of the nodes: per
 * version, the field index's expression and predicate, so the planner can probe it.
 */
export function touchingSql(
  params: Params,
  read: {
    versions: CollectionDef[];
    mapping: GraphMapping;
    touching: { nodes: string[]; direction: Direction };
  },
): string {
  const { versions, mapping, touching } = read;
  const nodes = `${params.add(touching.nodes)}::text[]`;
  const ends =
    touching.direction === "out"
      ? [mapping.subject]
      : touching.direction === "in"
        ? [mapping.object]
        : [mapping.subject, mapping.object];
  const arms = versions.flatMap((def) =>
    ends.flatMap((field) => {
      const declared = Object.hasOwn(def.fields, field) ? def.fields[field] : undefined;
      if (!declared) return [];
      return [
        `(${collectionVersionSql("r.", def.name, def.version)} AND ${fieldValueSql("r.", declared)} = ANY(${nodes}))`,
      ];
    }),
  );
  return arms.length ? `(${arms.join(" OR ")})` : "false";
}

/**
 * Current nodes of the collection $2 (versions $3) whose name (key, else entity) is not among
 * $4, in entity, key (byte order, keyless first), id order, $5 rows at most.
 */
export const ORPHANS = `SELECT r.id, r.collection_version, r.entity, r.key, r.text, r.content FROM records r
    WHERE r.workspace_id = $1 AND r.collection = $2 AND r.collection_version = ANY($3::int[])
      AND ${currentActive("$1")}
      AND NOT (COALESCE(r.key, r.entity) = ANY($4::text[]))
    ORDER BY r.entity COLLATE "C", r.key COLLATE "C" NULLS FIRST, r.id
    LIMIT $5`;
