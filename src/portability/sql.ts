// SQL owned by the portability module. Every statement names its workspace_id, so on Citus each
// routes to the one node holding the workspace (the job queue, a coordinator table, is written
// through worker/queue.ts alone).
import type { RowKind } from "./kinds.js";

/**
 * One page of a kind's rows after a key, in key order: each row as its line (JSON text built by
 * the database, so timestamps keep their microseconds and numbers their digits) and its key.
 * $1 the workspace, then the entity when `entity`, then the previous page's last key when `after`.
 */
export function exportPageSql(kind: RowKind, options: { entity: boolean; after: boolean; limit: number }) {
  const columns = kind.columns.map((column) => `${kind.expressions?.[column] ?? `t.${column}`} AS ${column}`);
  const where = ["t.workspace_id = $1"];
  let next = 2;
  if (options.entity && kind.entity) where.push(kind.entity(`$${next++}`));
  if (options.after) {
    const params = kind.key.map(() => `$${next++}`);
    where.push(`(${kind.key.map((k) => `t.${k}`).join(", ")}) > (${params.join(", ")})`);
  }
  const order = kind.key.map((k) => `t.${k}`).join(", ");
  return `SELECT row_to_json(x)::text AS line, ${kind.key.map((k) => `x.${k}`).join(", ")}
    FROM (SELECT '${kind.name}' AS kind, ${columns.join(", ")} FROM ${kind.table} t
      WHERE ${where.join(" AND ")} ORDER BY ${order} LIMIT ${Math.trunc(options.limit)}) x`;
}

/**
 * Inserts a batch of lines ($2, in file order) into the workspace $1, each read back with the
 * table's own row type (p). `values` gives a column's expression where it is not the line's value,
 * or a column the line does not carry; `skip` leaves columns to their defaults; `extra` are arrays
 * of per-line parameters beside the lines, read as l.x1, l.x2… Rows go in file order, so assigned
 * values (runs' seq) follow it.
 */
export function importBatchSql(
  kind: RowKind,
  options: { values?: Record<string, string>; skip?: readonly string[]; extra?: string[] } = {},
): string {
  const values = options.values ?? {};
  const columns = [
    ...kind.columns.filter((column) => !options.skip?.includes(column)),
    ...Object.keys(values).filter((column) => !kind.columns.includes(column)),
  ];
  const extra = options.extra ?? [];
  return `INSERT INTO ${kind.table} (workspace_id, ${columns.join(", ")})
    SELECT $1, ${columns.map((column) => values[column] ?? `p.${column}`).join(", ")}
    FROM unnest(${["$2::text[]", ...extra].join(", ")}) WITH ORDINALITY
        AS l(${["line", ...extra.map((_, i) => `x${i + 1}`)].join(", ")}, n),
      LATERAL jsonb_populate_record(NULL::${kind.table}, l.line::jsonb) p
    ORDER BY l.n`;
}

export const WORKSPACE_HEADER =
  "SELECT name, id, to_json(created_at) #>> '{}' AS created_at FROM workspaces WHERE id = $1";

/** Which of these tables hold rows of the workspace $1 (one snapshot). */
export function holdingsSql(tables: readonly string[]): string {
  return `SELECT ${tables.map((table) => `EXISTS (SELECT 1 FROM ${table} WHERE workspace_id = $1) AS ${table}`).join(", ")}`;
}

export const MAX_SEQ = "SELECT COALESCE(max(seq), 0) AS seq FROM records WHERE workspace_id = $1";
