// Expression indexes over declared fields (issue 20): a structured search sorted by a field, or
// a range on one, walks an index in order and stops at k instead of sorting every row in scope.
// Each is partial on its collection version and shared by the workspaces declaring the same
// field there; the queries repeat its expression and predicate (field-sql.ts).
import type { FieldIndexes } from "../catalog/index.js";
import type { CollectionDef, FieldDecl } from "../catalog/types.js";
import type { Queryable } from "../platform/db/index.js";
import { sha256Hex } from "../platform/hash.js";
import { collectionVersionSql, fieldValueSql } from "./field-sql.js";

interface FieldIndex {
  name: string;
  ddl: string;
}

type Direction = "ASC" | "DESC";

function fieldIndex(def: CollectionDef, field: FieldDecl, direction: Direction): FieldIndex {
  const id = [def.name, def.version, field.path, field.type, direction].join("\u0000");
  const name = `records_field_${sha256Hex(id).slice(0, 24)}`;
  return {
    name,
    // The order structured search asks for: the value in its direction, nulls last, newest first.
    ddl: `CREATE INDEX IF NOT EXISTS ${name} ON records
      (workspace_id, ${fieldValueSql("", field)} ${direction} NULLS LAST, seq DESC)
      WHERE ${collectionVersionSql("", def.name, def.version)}`,
  };
}

/** The indexes a collection version's declarations call for: both orders of a sortable field, one for a filter. */
function indexesOf(def: CollectionDef): FieldIndex[] {
  return Object.values(def.fields).flatMap((field) => {
    // List fields are matched by containment (?| and ?&), which a btree cannot answer.
    if (field.type === "string_array") return [];
    if (field.sort) return [fieldIndex(def, field, "DESC"), fieldIndex(def, field, "ASC")];
    return field.filter ? [fieldIndex(def, field, "DESC")] : [];
  });
}

// Two workspaces publishing the same declaration at once would race on the index name.
const LOCK_SQL = "SELECT pg_advisory_xact_lock(hashtextextended('engram.field-indexes', 0))";

/** Creates, in the publishing transaction, the field indexes that do not exist yet. */
export function fieldIndexes(): FieldIndexes {
  return {
    async prepare(tx: Queryable, collections: CollectionDef[]) {
      const wanted = new Map(collections.flatMap(indexesOf).map((index) => [index.name, index]));
      if (wanted.size === 0) return;
      await tx.query(LOCK_SQL);
      // Only missing ones: CREATE INDEX, even one that exists, holds a lock on records that
      // blocks every write until the publish commits.
      const { rows } = await tx.query<{ name: string }>(
        "SELECT relname AS name FROM pg_class WHERE relkind = 'i' AND relname = ANY($1::text[])",
        [[...wanted.keys()]],
      );
      for (const row of rows) wanted.delete(row.name);
      for (const index of wanted.values()) await tx.exec(index.ddl);
    },
  };
}
