// SQL of search: candidate proposals per mode with every visibility rule and filter applied
// against the records table itself (the system of record), so nothing is re-checked later.
import type { CollectionDef, FieldCondition, FieldDecl, OrderBy, SearchPart } from "../catalog/index.js";
import { type Db, parseJsonTimestamptz, queryRowsAsJson } from "../platform/db/index.js";
import { SYSTEM_COLLECTION, TOTALS_LEXEME } from "../records/index.js";
import { collectionVersionSql, fieldValueSql, jsonAt } from "./field-sql.js";
import type { Candidate } from "./types.js";

export class Params {
  readonly values: unknown[] = [];
  private workspaceParam: string | undefined;
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
  /**
   * The workspace's parameter, one for the whole statement. Every reference to a per-workspace
   * table names it outright, never only through another alias's workspace_id, so that Citus
   * routes the statement to the workspace's node (docs/scaling.md, "Statements that route").
   */
  workspace(id: string): string {
    this.workspaceParam ??= this.add(id);
    return this.workspaceParam;
  }
}

/**
 * The workspace filter a fenced read (OFFSET 0) of records repeats inside the fence, on Citus
 * only: Citus routes a subquery only on its own filter, while on one server the planner took the
 * filter as a reason to AND in the bitmap of the workspace's every record (half of a text
 * statement's time at 100k records), where the fenced index alone reads the same rows.
 */
export function routeFilter(
  params: Params,
  read: { db: Pick<Db, "distributed">; workspaceId: string; alias: string },
): string {
  return read.db.distributed ? `AND ${read.alias}.workspace_id = ${params.workspace(read.workspaceId)}` : "";
}

/**
 * Columns every candidate carries (src/search/types.ts Candidate): not the body, read for the
 * shown records only (src/search/bodies.ts). last_accessed is read only for a rank that reads its
 * age, since it costs a primary-key probe of record_access per candidate: `accessOf` is then the
 * statement's workspace parameter (Params.workspace).
 */
export function candidateColumns(accessOf?: string, r = "r"): string {
  const access = accessOf
    ? `(SELECT a.last_accessed FROM record_access a WHERE a.workspace_id = ${accessOf} AND a.record_id = ${r}.id)`
    : "NULL::timestamptz";
  return `${r}.id, ${r}.seq, ${r}.collection, ${r}.collection_version, ${r}.entity, ${r}.type, ${r}.key, ${r}.status,
  ${r}.depth, ${r}.run_id, ${r}.scores, ${r}.occurred_at, ${r}.created_at, ${access} AS last_accessed`;
}

/**
 * Runs a statement selecting candidateColumns (and signals): search reads hundreds per request.
 * PGlite's rows come as JSON (queryRowsAsJson) and get their timestamps and non-finite signals
 * back in place; a server's rows are returned as they are.
 */
export async function candidateRows<T extends Candidate>(
  db: Db,
  statement: {
    sql: string;
    values: unknown[];
    /** The statement recurs with other values (Db.queryRepeated). */
    repeated?: boolean;
  },
): Promise<T[]> {
  const { sql, values, repeated = false } = statement;
  const rows = await queryRowsAsJson<Record<string, unknown>>(db, { sql, values, repeated });
  if (db.kind === "pglite") {
    for (const row of rows) {
      for (const column of ["occurred_at", "created_at", "last_accessed"]) {
        const value = row[column];
        if (typeof value === "string") row[column] = parseJsonTimestamptz(value);
      }
      for (const column of ["similarity", "text_match"]) {
        const value = row[column];
        if (typeof value === "string") row[column] = Number(value);
      }
    }
  }
  return rows as T[];
}

/**
 * The records matching the tsquery q.tsq, read through the full-text index alone: the fence
 * (OFFSET 0) keeps the planner, which cannot see a tsquery the statement builds, from ANDing in
 * the far larger bitmaps of the workspace's other indexes. `route`: routeFilter's condition.
 */
export const textMatches = (route: string) =>
  `LATERAL (SELECT * FROM records t WHERE t.search_text @@ q.tsq ${route} OFFSET 0) r`;

function conditionSql(params: Params, field: FieldDecl, condition: FieldCondition): string[] {
  const out: string[] = [];
  const json = jsonAt("r.", field.path);
  const cast = field.type === "datetime" ? "timestamptz" : "numeric";
  // The same expression as the field's index (field-indexes.ts), so a range can walk it.
  const compare = (op: string, value: unknown) =>
    `${fieldValueSql("r.", field)} ${op} ${params.add(value)}::${cast}`;
  if (condition.eq !== undefined) out.push(`${json} = ${params.add(JSON.stringify(condition.eq))}::jsonb`);
  if (condition.in !== undefined) {
    out.push(`${json} IN (SELECT jsonb_array_elements(${params.add(JSON.stringify(condition.in))}::jsonb))`);
  }
  if (condition.gt !== undefined) out.push(compare(">", condition.gt));
  if (condition.gte !== undefined) out.push(compare(">=", condition.gte));
  if (condition.lt !== undefined) out.push(compare("<", condition.lt));
  if (condition.lte !== undefined) out.push(compare("<=", condition.lte));
  if (condition.exists !== undefined) {
    const present = `(${json} IS NOT NULL AND jsonb_typeof(${json}) <> 'null')`;
    out.push(condition.exists ? present : `NOT ${present}`);
  }
  if (condition.contains_any !== undefined) {
    out.push(
      `(jsonb_typeof(${json}) = 'array' AND ${json} ?| ${params.add(condition.contains_any)}::text[])`,
    );
  }
  if (condition.contains_all !== undefined) {
    out.push(
      `(jsonb_typeof(${json}) = 'array' AND ${json} ?& ${params.add(condition.contains_all)}::text[])`,
    );
  }
  return out;
}

/**
 * The collection versions in scope. One version is written as equalities, which the partial
 * indexes of declared fields (src/search/field-indexes.ts) are predicated on.
 */
function targetsSql(params: Params, targets: SearchPart["targets"]): string {
  const [only, ...others] = targets;
  if (only && others.length === 0) return collectionVersionSql("r.", only.name, only.version);
  return `(r.collection, r.collection_version) IN (SELECT * FROM unnest(${params.add(targets.map((t) => t.name))}::text[], ${params.add(targets.map((t) => t.version))}::int[]))`;
}

/**
 * Visibility and filters of one search: the caller's workspace, ready, not a tombstone, not a
 * retracted slot, the collection versions in scope, status, keyed, current-ness (decided on
 * heads, before readiness: a newer unready value hides the older one), entities, types, strict
 * occurred_at bounds, depth, and every where condition.
 */
export function filterSql(
  params: Params,
  search: { workspaceId: string; part: SearchPart; declarations: Map<string, CollectionDef> },
): string {
  const { workspaceId, part, declarations } = search;
  const scope = part.scope;
  const out = [
    `r.workspace_id = ${params.workspace(workspaceId)}`,
    "r.ready",
    "NOT r.tombstone",
    `r.collection <> ${params.add(SYSTEM_COLLECTION)}`,
    targetsSql(params, part.targets),
  ];
  if (scope.status !== "all") out.push(`r.status = ${params.add(scope.status)}`);
  if (scope.keyed === true) out.push("r.key IS NOT NULL");
  if (scope.keyed === false) out.push("r.key IS NULL");
  if (part.as_of !== undefined)
    out.push(...asOfSql(params, { workspaceId, asOf: part.as_of, versions: scope.versions }));
  else out.push(headSql(params, workspaceId, scope.versions));
  if (scope.entities?.length === 1) {
    // Equality, not = ANY: PostgreSQL 15 walks (workspace, entity, occurred_at) in order only then.
    out.push(`r.entity = ${params.add(scope.entities[0])}`);
  } else if (scope.entities) out.push(`r.entity = ANY(${params.add(scope.entities)}::text[])`);
  if (scope.types) out.push(`r.type = ANY(${params.add(scope.types)}::text[])`);
  if (scope.occurred_after) out.push(`r.occurred_at > ${params.add(scope.occurred_after)}::timestamptz`);
  if (scope.occurred_before) out.push(`r.occurred_at < ${params.add(scope.occurred_before)}::timestamptz`);
  if (scope.depth_lte !== undefined) out.push(`r.depth <= ${params.add(scope.depth_lte)}`);
  for (const [field, condition] of Object.entries(part.where)) {
    out.push(...conditionSql(params, declarationOf(declarations, part, field), condition));
  }
  return out.join("\n  AND ");
}

/**
 * Current-ness now, on heads. Keyed rows are checked against the head of their slot, one
 * primary-key probe of heads per keyed row, as a scalar subquery: an EXISTS under the OR became
 * a hashed SubPlan that read every head of every workspace first, and a NOT EXISTS is an
 * anti-join the planner weighs join orders for (half of a tier statement's 1 ms of planning).
 */
function headSql(params: Params, workspaceId: string, versions: "current" | "all"): string {
  const slot = `FROM heads h WHERE h.workspace_id = ${params.workspace(workspaceId)} AND h.entity = r.entity
       AND h.collection = r.collection AND h.key = r.key AND h.status = r.status`;
  // Current: the row is its slot's head, so the slot is not retracted (the row is no tombstone).
  if (versions === "current") return `(r.key IS NULL OR (SELECT h.record_id ${slot}) = r.id)`;
  // Every version: none of a slot whose head is a tombstone (retracted).
  return `(r.key IS NULL OR (SELECT h.tombstone ${slot} AND h.tombstone) IS NULL)`;
}

/**
 * Memory as of a moment (docs/api.md "Memory over time"): only rows created by then (to the
 * millisecond replies carry), and current-ness decided among them, not on today's heads: a
 * keyed row is current when no newer version of its slot was created by then, and a slot is
 * retracted when its newest version by then is a tombstone. Each is one probe of
 * records_slot_seq per keyed row, a scalar subquery for the reason headSql gives.
 */
function asOfSql(
  params: Params,
  read: { workspaceId: string; asOf: string; versions: "current" | "all" },
): string[] {
  const { workspaceId, asOf, versions } = read;
  const moment = params.add(asOf);
  const slot = `FROM records n WHERE n.workspace_id = ${params.workspace(workspaceId)} AND n.entity = r.entity
       AND n.collection = r.collection AND n.key = r.key AND n.status = r.status
       AND date_trunc('milliseconds', n.created_at) <= ${moment}::timestamptz`;
  const created = `date_trunc('milliseconds', r.created_at) <= ${moment}::timestamptz`;
  if (versions === "current") {
    return [created, `(r.key IS NULL OR (SELECT n.seq ${slot} AND n.seq > r.seq LIMIT 1) IS NULL)`];
  }
  return [created, `(r.key IS NULL OR (SELECT n.tombstone ${slot} ORDER BY n.seq DESC LIMIT 1) IS NOT TRUE)`];
}

/** A field's declaration; the validator guaranteed one path and type across the versions. */
export function declarationOf(declarations: Map<string, CollectionDef>, part: SearchPart, field: string) {
  for (const target of part.targets) {
    const found = declarations.get(`${target.name}@${target.version}`)?.fields[field];
    if (found) return found;
  }
  throw new Error(`field ${field} is not declared in scope`);
}

/** ORDER BY of structured mode: declared sortable fields, then newest first for stability. */
export function orderSql(
  part: SearchPart,
  declarations: Map<string, CollectionDef>,
  orderBy: OrderBy[],
): string {
  const keys = orderBy.map((order) => {
    const value = fieldValueSql("r.", declarationOf(declarations, part, order.field));
    return `${value} ${order.direction === "desc" ? "DESC" : "ASC"} NULLS LAST`;
  });
  return [...keys, "r.seq DESC"].join(", ");
}

/**
 * Most distinct terms (words, quoted phrases and -exclusions) a text query uses; later ones are
 * ignored. Each term costs the full-text match and ts_rank_cd a pass, and PGlite failed outright
 * on a query of ~900 terms ("bad buffer ID"), wedging the embedded database.
 */
export const MAX_TEXT_TERMS = 64;

export interface TextTerm {
  text: string;
  phrase: boolean;
  negate: boolean;
}

/** The query's terms in order, duplicates dropped, at most MAX_TEXT_TERMS. */
export function textTerms(q: string): TextTerm[] {
  const terms: TextTerm[] = [];
  const seen = new Set<string>();
  for (const match of q.matchAll(/(-?)"([^"]+)"|(-?)(\S+)/g)) {
    const phrase = match[2];
    const term = {
      text: phrase ?? match[4] ?? "",
      phrase: phrase !== undefined,
      negate: (match[1] ?? match[3]) === "-",
    };
    const id = JSON.stringify(term);
    if (seen.has(id)) continue;
    seen.add(id);
    terms.push(term);
    if (terms.length === MAX_TEXT_TERMS) break;
  }
  return terms;
}

/**
 * A tsquery matching records that contain any of the query's terms (docs/api.md, "Modes"): quoted
 * phrases must appear as phrases, -term excludes. The terms travel as three array parameters and
 * the tsquery is assembled in one flat expression, whatever their number.
 */
export function tsQuerySql(params: Params, config: string, q: string): string | undefined {
  const terms = textTerms(q);
  if (!terms.some((term) => !term.negate)) return undefined;
  const cfg = `${params.add(config)}::regconfig`;
  // Each term's own tsquery, in its text form, joined: wanted ones by |, excluded ones as & !().
  // Terms that are only stop words give an empty tsquery and drop out; none left matches nothing.
  return `(SELECT ('(' || string_agg(CASE WHEN NOT t.negate THEN '(' || t.q::text || ')' END, ' | ' ORDER BY t.n) || ')'
      || coalesce(string_agg(CASE WHEN t.negate THEN ' & !(' || t.q::text || ')' END, '' ORDER BY t.n), ''))::tsquery
    FROM (SELECT u.n, u.negate,
            CASE WHEN u.phrase THEN phraseto_tsquery(${cfg}, u.text) ELSE plainto_tsquery(${cfg}, u.text) END AS q
          FROM unnest(${params.add(terms.map((t) => t.text))}::text[], ${params.add(terms.map((t) => t.phrase))}::boolean[],
            ${params.add(terms.map((t) => t.negate))}::boolean[]) WITH ORDINALITY AS u(text, phrase, negate, n)) t
    WHERE numnode(t.q) > 0)`;
}

/** Each wanted term's lexemes (or phrase query), and the statistics of those lexemes. */
export const TERMS_AND_STATS = `
  WITH terms AS (
    SELECT x.n, x.phrase,
      CASE WHEN NOT x.phrase THEN ARRAY(SELECT u.lexeme FROM unnest(to_tsvector($2::regconfig, x.text)) AS u) END AS lexemes,
      CASE WHEN x.phrase THEN phraseto_tsquery($2::regconfig, x.text)::text END AS query
    FROM unnest($3::text[], $4::boolean[]) WITH ORDINALITY AS x(text, phrase, n))
  SELECT (SELECT json_agg(json_build_object('phrase', t.phrase, 'lexemes', t.lexemes, 'query', t.query) ORDER BY t.n)
      FROM terms t) AS terms,
    (SELECT json_object_agg(s.lexeme, s.docs::text || ':' || s.occurrences::text) FROM text_stats s
      WHERE s.workspace_id = $1 AND s.config = $2::text
        AND s.lexeme IN (SELECT '${TOTALS_LEXEME}' UNION ALL SELECT unnest(t.lexemes) FROM terms t)) AS stats,
    (SELECT c.text_stats_built FROM workspace_counters c WHERE c.workspace_id = $1) AS built`;

/** Searchable records holding a phrase (the statistics' population: src/records/text-stats.ts). */
export const PHRASE_DF = `
  SELECT count(*)::int AS n FROM records r
  WHERE r.workspace_id = $1 AND r.search_config = $2::text AND r.search_text @@ $3::tsquery
    AND r.ready AND NOT r.tombstone
    AND (r.key IS NULL OR (SELECT h.record_id FROM heads h WHERE h.workspace_id = $1 AND h.entity = r.entity
      AND h.collection = r.collection AND h.key = r.key AND h.status = r.status) = r.id)`;

/** The bodies of the records $2 a search shows, read after ranking (bodies.ts). */
export const BODIES = `SELECT id, text, content, annotations
  FROM records WHERE workspace_id = $1 AND id = ANY($2::uuid[])`;
