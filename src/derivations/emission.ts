// From a task's output to the rows a run may write (docs/api.md, "How a run works":
// Emission). The output of emit.from is {records: [{key, text, content?, citations,
// retract?}]}. A row is kept only when every rule holds; the others are listed as rejected with
// their reason and never written:
// - citations: a non-empty list of ids of evidence shown to this run (nothing else is citable);
// - key: required by keyed and mixed collections, refused by event ones, within emit.keys when
//   declared, of emit.key_rule's form, once per output;
// - text (not blank, unless retract) and content (the collection's schema) storable as written;
// - retract: true writes a tombstone and needs a key;
// - the key's active value is still the one the run read (a value written meanwhile is never
//   overwritten by output drawn from older evidence);
// - at most emit.max_records rows.
// With complete: true every declared key must be covered, else the run fails `emission`; a
// non-empty output whose rows are all rejected fails too.
import { type CollectionDef, type EmitDef, KEY_RULES } from "../catalog/index.js";
import { canonicalJson } from "../platform/hash.js";
import { inputProblems } from "../platform/input.js";
import { compileSchema } from "../platform/schema.js";
import { ROW_LIMITS } from "../records/index.js";
import { RunFailure } from "./failure.js";

export interface EmittedRow {
  /** Position in the model's output. */
  index: number;
  key: string | null;
  text: string;
  content: Record<string, unknown>;
  citations: string[];
  retract: boolean;
}

export interface Rejected {
  index: number;
  key: string | null;
  reason: string;
}

/** An active head of the emission collection when the run read its evidence. */
export interface BasisHead {
  key: string;
  record_id: string;
  tombstone: boolean;
  text: string;
  content: Record<string, unknown>;
}

export type Change = "added" | "changed" | "removed" | "unchanged";

export interface CandidateSet {
  covered_keys: string[];
  divergence: { key: string; change: Change }[];
}

export interface Emission {
  rows: EmittedRow[];
  rejected: Rejected[];
  candidate_set: CandidateSet;
  /** Why nothing may be written (the run fails `emission`), or null. */
  failure: string | null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Why a row cannot be written, or null. */
function rowProblem(
  raw: Record<string, unknown>,
  context: EmissionContext & { seenKeys: Set<string> },
): string | null {
  const { emit, collection } = context;
  const citations = raw.citations;
  if (!Array.isArray(citations) || citations.length === 0)
    return "no citations: a row must cite the evidence it rests on";
  const unseen = citations.filter((id) => typeof id !== "string" || !context.shown.has(id.toLowerCase()));
  if (unseen.length > 0) return `cites ${unseen.length} id(s) that were not shown to this run`;
  const key = raw.key;
  if (collection.mode === "event") {
    if (key !== undefined && key !== null) return `event collection ${collection.name} takes no key`;
  } else {
    if (typeof key !== "string" || key.trim() === "" || key.length > ROW_LIMITS.keyChars) {
      return `a key (text of 1 to ${ROW_LIMITS.keyChars} characters) is required in ${collection.mode} collection ${collection.name}`;
    }
    if (emit.keys && !emit.keys.includes(key)) return `key "${key}" is not in emit.keys`;
    const rule = KEY_RULES[emit.key_rule];
    if (!rule.test(key)) return `key "${key}" does not follow emit.key_rule ${emit.key_rule}: ${rule.hint}`;
    if (context.seenKeys.has(key)) return `key "${key}" was already emitted by an earlier row`;
    if (context.current.get(key)?.record_id !== context.basis.get(key)?.record_id) {
      return `key "${key}" changed since the run read its evidence`;
    }
  }
  if (raw.retract !== undefined && typeof raw.retract !== "boolean") return "retract must be true or false";
  if (raw.retract === true) {
    if (collection.mode === "event") return "only a keyed row can be retracted";
  } else {
    if (typeof raw.text !== "string" || raw.text.trim() === "") return "text is required";
    if (raw.text.length > ROW_LIMITS.textChars)
      return `text is longer than ${ROW_LIMITS.textChars} characters`;
    const content = raw.content ?? {};
    if (!isObject(content)) return "content must be an object";
    const validate = compileSchema(collection.schema);
    if (!validate(content)) return `content does not satisfy collection ${collection.name}'s schema`;
  }
  if (inputProblems(raw).length > 0)
    return "holds text that storage cannot hold (NUL or a lone surrogate) or a non-finite number";
  return null;
}

function changeOf(row: EmittedRow, head: BasisHead | undefined): Change {
  const live = head && !head.tombstone ? head : undefined;
  if (row.retract) return live ? "removed" : "unchanged";
  if (!live) return "added";
  const same = live.text === row.text && canonicalJson(live.content) === canonicalJson(row.content);
  return same ? "unchanged" : "changed";
}

export interface EmissionContext {
  emit: EmitDef;
  collection: CollectionDef;
  /** Lowercase ids of the evidence shown to the run. */
  shown: Set<string>;
  /** Active heads when the run read its evidence, and now, by key. */
  basis: Map<string, BasisHead>;
  current: Map<string, BasisHead>;
}

/** Keys whose active head moved between the run's read and now. */
export function keyedDivergence(context: EmissionContext) {
  const keys = [...new Set([...context.basis.keys(), ...context.current.keys()])].sort();
  return keys.flatMap((key) => {
    const expected = context.basis.get(key)?.record_id ?? null;
    const actual = context.current.get(key)?.record_id ?? null;
    return expected === actual ? [] : [{ key, expected_record_id: expected, actual_record_id: actual }];
  });
}

export function planEmission(output: unknown, context: EmissionContext): Emission {
  const { emit } = context;
  const list = isObject(output) ? output.records : undefined;
  if (!Array.isArray(list)) {
    throw new RunFailure("model_output", `task ${emit.from}: the output has no records list`);
  }
  const rows: EmittedRow[] = [];
  const rejected: Rejected[] = [];
  const seenKeys = new Set<string>();
  list.forEach((raw, index) => {
    const key = isObject(raw) && typeof raw.key === "string" ? raw.key : null;
    const problem = !isObject(raw)
      ? "not an object"
      : emit.max_records !== null && rows.length >= emit.max_records
        ? `over emit.max_records (${emit.max_records})`
        : rowProblem(raw, { ...context, seenKeys });
    if (problem !== null || !isObject(raw)) {
      rejected.push({ index, key, reason: problem ?? "not an object" });
      return;
    }
    if (key !== null) seenKeys.add(key);
    const retract = raw.retract === true;
    rows.push({
      index,
      key: context.collection.mode === "event" ? null : key,
      text: retract ? "" : (raw.text as string),
      content: retract ? {} : ((raw.content as Record<string, unknown> | undefined) ?? {}),
      citations: [...new Set((raw.citations as string[]).map((id) => id.toLowerCase()))],
      retract,
    });
  });
  const covered = rows.flatMap((row) => (row.key === null ? [] : [row.key]));
  const missing = emit.complete ? (emit.keys ?? []).filter((key) => !covered.includes(key)) : [];
  const failure =
    rows.length === 0 && rejected.length > 0
      ? `every one of the ${rejected.length} output row(s) was rejected`
      : missing.length > 0
        ? `emit.complete needs every declared key written or retracted; missing: ${missing.join(", ")}`
        : null;
  return {
    rows,
    rejected,
    failure,
    candidate_set: {
      covered_keys: covered,
      divergence: rows.flatMap((row) =>
        row.key === null ? [] : [{ key: row.key, change: changeOf(row, context.basis.get(row.key)) }],
      ),
    },
  };
}
