// What a row line of an import must be (docs/export.md, "Import"): a file is client input, so each
// line is held to what POST /records would take. Every kind's line carries its kind's columns and
// no other; the fields a client writes have the bounds and types of POST /records' row schema
// (src/records/row-schema.ts: text length, entity, type, key and dedupe_key lengths, status,
// scores and annotations), timestamps are ISO 8601 with a timezone, seqs are integers from 1
// (positions and watermarks from 0), ids are uuids, and a record's content satisfies its
// collection's schema when the imported catalog defines that version (a record of a version no
// longer listed keeps the content it was written with, as compatibility lets it: any object).
import { type InstalledCatalog, isZonedTimestamp } from "../catalog/index.js";
import { INT4_MAX, SEQ_MAX, UUID_PATTERN } from "../platform/input.js";
import { compileSchema, toFieldErrors, type ValidateFunction } from "../platform/schema.js";
import { ROW_SCHEMA } from "../records/index.js";
import { refuse } from "./format.js";
import {
  BACKFILL,
  CURSOR,
  DERIVATION_STATE,
  embeddingKind,
  HEAD,
  RECORD,
  RUN,
  TABLE_KINDS,
} from "./kinds.js";

const row = ROW_SCHEMA.properties;

/** The schema, or null (a column export writes as null when it is empty). */
function nullable<T extends { type: string | readonly string[] }>(schema: T) {
  return { ...schema, type: [...[schema.type].flat(), "null"] };
}

const uuid = { type: "string", pattern: UUID_PATTERN } as const;
const seq = { type: "integer", minimum: 1, maximum: SEQ_MAX } as const;
const position = { type: "integer", minimum: 0, maximum: SEQ_MAX } as const;
const int4 = (minimum: number) => ({ type: "integer", minimum, maximum: INT4_MAX }) as const;
const text = { type: "string" } as const;
/** Provenance lists: any length (a snapshot rests on every record its render used). */
const ids = { type: "array", items: row.derived_from.items } as const;

/** Columns whose values a line must hold to as it is written; the others are typed by the database. */
const COLUMN_RULES: Record<string, Record<string, object>> = {
  [RECORD.name]: {
    id: uuid,
    seq,
    collection: row.collection,
    collection_version: int4(1),
    collection_hash: text,
    entity: row.entity,
    type: row.type,
    key: row.key,
    status: row.status,
    ready: { type: "boolean" },
    tombstone: row.tombstone,
    text: row.text,
    content: row.content,
    scores: row.scores,
    annotations: row.annotations,
    citations: ids,
    derived_from: ids,
    depth: int4(0),
    run_id: nullable(uuid),
    dedupe_key: nullable(row.dedupe_key),
    payload_hash: text,
    occurred_at: text,
    created_at: text,
    search_text: nullable(text),
    search_length: nullable(int4(0)),
    search_config: nullable(text),
  },
  [HEAD.name]: {
    entity: row.entity,
    collection: row.collection,
    key: row.key,
    status: row.status,
    record_id: uuid,
    seq,
    tombstone: { type: "boolean" },
  },
  [CURSOR.name]: { entity: nullable(row.entity), position },
  [DERIVATION_STATE.name]: { entity: row.entity, watermark_seq: position },
  // Numbered anew on import, but a seq all the same.
  [RUN.name]: { id: uuid, seq, entity: nullable(row.entity) },
  [BACKFILL.name]: { id: uuid, cursor_seq: position },
};

/** Timestamp columns, checked as POST /records checks occurred_at. */
const TIMESTAMPS: Record<string, readonly string[]> = { [RECORD.name]: ["occurred_at", "created_at"] };

/** One kind's line: `kind` and its columns, each under its rule (any value when it has none). */
function lineSchema(name: string, columns: readonly string[]) {
  const rules = COLUMN_RULES[name] ?? {};
  return {
    type: "object",
    properties: {
      kind: { const: name },
      ...Object.fromEntries(columns.map((column) => [column, rules[column] ?? {}])),
    },
    required: ["kind", ...(name === RECORD.name ? ["id", "seq", ...ROW_SCHEMA.required] : [])],
    additionalProperties: false,
  };
}

const SCHEMAS = new Map(
  [...TABLE_KINDS, embeddingKind(false)].map((kind) => [
    kind.name,
    compileSchema(lineSchema(kind.name, kind.columns)),
  ]),
);

/** What the row schema's patterns mean, said instead of the pattern. */
const PATTERNS: Record<string, string> = { [UUID_PATTERN]: "must be a uuid", "\\S": "must not be blank" };

/** A validator's problems, each as a clause: "text must NOT have more than 100000 characters". */
function problems(validate: ValidateFunction, kind: string, prefix = ""): string[] {
  return (validate.errors ?? []).map((error) => {
    const [field] = toFieldErrors([error], prefix);
    const path = field?.path ?? prefix;
    if (error.keyword === "additionalProperties" && error.instancePath === "")
      return `${path} is not a column of ${kind} lines`;
    const pattern =
      error.keyword === "pattern" ? PATTERNS[(error.params as { pattern: string }).pattern] : undefined;
    return `${path || "the line"} ${pattern ?? field?.message ?? "is invalid"}`;
  });
}

/** Most problems one refusal names (a line may have thousands). */
const MAX_NAMED = 3;

export type RowCheck = (line: Record<string, unknown>, number: number) => void;

/**
 * Checks each row line against its kind's rules and, for records, the imported catalog's
 * collection schemas; a refusal names the line and every rule it breaks (the first few).
 */
export function rowChecker(catalog: InstalledCatalog | undefined): RowCheck {
  return (line: Record<string, unknown>, number: number): void => {
    const kind = line.kind as string;
    const validate = SCHEMAS.get(kind);
    if (!validate) return;
    const found = validate(line) ? [] : problems(validate, kind);
    for (const column of TIMESTAMPS[kind] ?? []) {
      const value = line[column];
      if (typeof value === "string" && !isZonedTimestamp(value))
        found.push(`${column} must be an ISO 8601 timestamp with a timezone`);
    }
    if (kind === RECORD.name && found.length === 0) {
      const entry = catalog?.index.collections.get(`${line.collection}@${line.collection_version}`);
      if (entry) {
        const validateContent = compileSchema(entry.def.schema);
        if (!validateContent(line.content ?? {})) found.push(...problems(validateContent, kind, "content"));
      }
    }
    if (found.length > 0) {
      const more = found.length > MAX_NAMED ? ` (and ${found.length - MAX_NAMED} more)` : "";
      refuse(number, `the ${kind} line's ${found.slice(0, MAX_NAMED).join("; ")}${more}`);
    }
  };
}
