// The workspace's entities by name (GET /entities): each with its record count, newest seq and
// when that record was written. Names compare byte by byte (COLLATE "C"), on every database.
import type { Queryable } from "../platform/db/index.js";
import * as sql from "./sql.js";

export interface EntityRow {
  entity: string;
  records: number;
  last_seq: number;
  last_at: Date;
}

export interface EntityQuery {
  /** Names starting with this text, taken literally (% and _ are not wildcards). */
  prefix?: string;
  limit: number;
  /** The last name of the previous page. */
  after?: string;
}

export interface EntityPage {
  entities: EntityRow[];
  /** Pass as after for the next page; null on the last page. */
  next_after: string | null;
}

/** A LIKE pattern matching names that start with prefix: its \, % and _ escaped. */
export function prefixPattern(prefix: string): string {
  return `${prefix.replace(/[\\%_]/g, "\\$&")}%`;
}

/** One page of entities in name order, _system records left out. */
export async function listEntities(db: Queryable, workspaceId: string, q: EntityQuery): Promise<EntityPage> {
  const { rows } = await db.query<EntityRow>(sql.ENTITY_PAGE, [
    workspaceId,
    q.prefix ? prefixPattern(q.prefix) : null,
    q.after ?? null,
    q.limit + 1,
  ]);
  const more = rows.length > q.limit;
  const entities = more ? rows.slice(0, q.limit) : rows;
  return { entities, next_after: more ? (entities[entities.length - 1]?.entity ?? null) : null };
}
