// Reading many rows of many fields. PGlite decodes every field of every row in JavaScript, a
// TextDecoder call and a buffer copy each: 200 search candidates of 17 columns took 4.5 ms where
// the statement ran in 0.6 (bench/notes/pglite.md). There the rows come back as one JSON array
// instead, one field for one JSON.parse (2.2 ms). A server's driver decodes fields natively and
// the JSON array cost it 3x, so it reads rows.
import { jsonRowsSql } from "./sql.js";
import type { Db } from "./types.js";

/**
 * The rows of a SELECT, in its order. On PGlite the values are as JSON renders them: timestamps
 * as ISO strings ("YYYY-MM-DDTHH:MM:SS…", see parseJsonTimestamptz), NaN and infinite floats as
 * strings; text, numbers, booleans, uuids, nulls and json(b) are as the row protocol gives them.
 */
export async function queryRowsAsJson<T>(
  db: Pick<Db, "kind" | "query" | "queryRepeated">,
  statement: {
    sql: string;
    values: unknown[];
    /** The statement recurs with other values (Db.queryRepeated). */
    repeated?: boolean;
  },
): Promise<T[]> {
  const { sql, values, repeated = false } = statement;
  const query = <R>(text: string, params: unknown[]) =>
    repeated ? db.queryRepeated<R>(text, params) : db.query<R>(text, params);
  if (db.kind !== "pglite") return (await query<T>(sql, values)).rows;
  const { rows } = await query<{ rows: T[] | null }>(jsonRowsSql(sql), values);
  return rows[0]?.rows ?? [];
}
