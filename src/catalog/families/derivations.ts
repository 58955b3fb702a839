// Derivations (`derivations/*.yaml`, a `derivations:` list): read records of an entity, run
// bounded model tasks over them and emit new cited records. Manifests list them under
// `processors` (by name); an inline `trigger` is listed as `<derivation>.default`.
//
// Fields (strict):
// - name (required, lowercase name); description (optional).
// - trigger (optional): the inline trigger (triggers.ts) without name and derivation.
// - sources (required, at least one): map of lowercase name to
//   {kind (required: changes | snapshot | current), collections (required, unique names),
//    types (optional, unique; absent: every type), statuses (optional subset of active, draft;
//    default [active]), keyed (true | false | any; default any), keys (optional, unique; only
//    keyed records with these keys; not with keyed false), max_records (optional positive
//    integer, at most limits.max_retrieved_records), max_tokens (optional positive integer),
//    allow_empty (boolean, default false)}. A `current` source reads current keyed values, so
//    it takes no keyed false and its collections must be keyed or mixed.
// - model (optional model alias; default: conf/models.yaml defaults.derivation).
// - limits (required; every field a required positive integer): max_tasks (at least the number
//   of tasks), max_llm_calls (at least the number of tasks), max_retrieved_records,
//   max_visible_records (at most max_retrieved_records), max_total_tokens, max_wall_s.
// - tasks (required, at least one): {id (lowercase name, unique), use (llm), with: {prompt,
//   output_schema (JSON Schema 2020-12)}}.
// - emit (required): {from (a task id), collection (a collection name), type (record type),
//   keys (optional unique list), key_rule (any | dotted, default any; not with keys: the form
//   of the keys the output chooses, KEY_RULES), complete (boolean, default false; true requires keys),
//   review (required | none, default none), max_records (optional positive integer)}.
//
// Link: the model alias exists and is a model alias; every source collection is listed; the
// emission collection is listed with an active version, which is keyed or mixed when keys are
// used (an event collection takes no keys). (The loader refuses a processor and a derivation
// sharing a name: manifests list both under processors.)
import {
  type CatalogIndex,
  type Def,
  type DerivationDef,
  type DerivationLimits,
  type DerivationSource,
  type DerivationTask,
  type EmitDef,
  type Entry,
  type KeyRule,
  NAME,
  NAME_HINT,
  type RecordStatus,
  type TriggerDef,
} from "../definition/index.js";
import {
  checkAlias,
  parseCollectionNames,
  parseJsonSchema,
  parseName,
  resolveCollectionName,
} from "./processors.js";
import { parseInlineTrigger } from "./triggers.js";

const LIMITS = [
  "max_tasks",
  "max_llm_calls",
  "max_retrieved_records",
  "max_visible_records",
  "max_total_tokens",
  "max_wall_s",
] as const;
const KEY_ITEM = { maxLength: 256 };

/**
 * emit.key_rule: the form a key the model chooses must take (docs/catalog.md, "Derivations").
 * `dotted`: lowercase words of a-z, 0-9 and _ joined by single dots, at most 128 characters
 * (`home.city`, `preference.food`), so that one fact lands in one slot however it is phrased.
 */
export const KEY_RULES: Record<KeyRule, { test: (key: string) => boolean; hint: string }> = {
  any: { test: () => true, hint: "any key" },
  dotted: {
    test: (key) => key.length <= 128 && /^[a-z0-9_]+(\.[a-z0-9_]+)*$/.test(key),
    hint: "lowercase words of a-z, 0-9 and _ joined by dots, at most 128 characters (e.g. home.city)",
  },
};

function parseLimits(src: Def): DerivationLimits {
  src.fields(LIMITS, LIMITS);
  const limits = Object.fromEntries(LIMITS.map((key) => [key, src.at(key).integer({ min: 1 })])) as unknown;
  const out = limits as DerivationLimits;
  if (out.max_visible_records > out.max_retrieved_records) {
    src
      .at("max_visible_records")
      .fail(
        `must not exceed max_retrieved_records (${out.max_retrieved_records}): visible records are retrieved ones`,
      );
  }
  return out;
}

function parseStatuses(src: Def): RecordStatus[] {
  if (!src.present) return ["active"];
  const statuses = src.strings({ min: 1 });
  src.list().forEach((item) => {
    item.oneOf(["active", "draft"] as const);
  });
  return statuses as RecordStatus[];
}

function parseSource(src: Def, limits: DerivationLimits): DerivationSource {
  src.fields(
    ["kind", "collections", "types", "statuses", "keyed", "keys", "max_records", "max_tokens", "allow_empty"],
    ["kind", "collections"],
  );
  const kind = src.at("kind").oneOf(["changes", "snapshot", "current"] as const);
  const keyedSrc = src.at("keyed").maybe();
  let keyed: boolean | "any" = "any";
  if (keyedSrc) {
    keyed = typeof keyedSrc.value === "boolean" ? keyedSrc.value : keyedSrc.oneOf(["any"] as const);
  }
  if (kind === "current" && keyed === false) keyedSrc?.fail("a current source reads current keyed values");
  const keys = src.at("keys").maybe()?.strings({ min: 1, item: KEY_ITEM }) ?? null;
  if (keys && keyed === false)
    src.at("keys").fail("keys select keyed records; they cannot combine with keyed false");
  const maxRecords = src.at("max_records").maybe()?.integer({ min: 1 }) ?? null;
  if (maxRecords !== null && maxRecords > limits.max_retrieved_records) {
    src
      .at("max_records")
      .fail(`must not exceed limits.max_retrieved_records (${limits.max_retrieved_records})`);
  }
  return {
    kind,
    collections: parseCollectionNames(src.at("collections")),
    types: src.at("types").maybe()?.strings({ min: 1 }) ?? null,
    statuses: parseStatuses(src.at("statuses")),
    keyed,
    keys,
    max_records: maxRecords,
    max_tokens: src.at("max_tokens").maybe()?.integer({ min: 1 }) ?? null,
    allow_empty: src.at("allow_empty").maybe()?.boolean() ?? false,
  };
}

function parseTask(src: Def): DerivationTask {
  src.fields(["id", "use", "with"], ["id", "use", "with"]);
  const withSrc = src.at("with");
  withSrc.fields(["prompt", "output_schema"], ["prompt", "output_schema"]);
  return {
    id: src.at("id").string({ pattern: NAME, patternHint: NAME_HINT }),
    use: src.at("use").oneOf(["llm"] as const),
    with: {
      prompt: withSrc.at("prompt").string(),
      output_schema: parseJsonSchema(withSrc.at("output_schema")),
    },
  };
}

function parseEmit(src: Def, tasks: DerivationTask[]): EmitDef {
  src.fields(
    ["from", "collection", "type", "keys", "key_rule", "complete", "review", "max_records"],
    ["from", "collection", "type"],
  );
  const from = src.at("from").string();
  if (!tasks.some((task) => task.id === from)) {
    src
      .at("from")
      .fail(`no task "${from}" (tasks: ${tasks.map((t) => t.id).join(", ")})`, "definition_unresolved");
  }
  const keys = src.at("keys").maybe()?.strings({ min: 1, item: KEY_ITEM }) ?? null;
  const keyRule =
    src
      .at("key_rule")
      .maybe()
      ?.oneOf(Object.keys(KEY_RULES) as KeyRule[]) ?? "any";
  if (keys && keyRule !== "any")
    src.at("key_rule").fail("key_rule holds keys the output chooses; emit.keys already names every key");
  const complete = src.at("complete").maybe()?.boolean() ?? false;
  if (complete && !keys)
    src.at("complete").fail("complete true requires emit.keys (every declared key is written or retracted)");
  return {
    from,
    collection: parseName(src.at("collection")),
    type: src.at("type").string({ maxLength: 256 }),
    keys,
    key_rule: keyRule,
    complete,
    review:
      src
        .at("review")
        .maybe()
        ?.oneOf(["required", "none"] as const) ?? "none",
    max_records: src.at("max_records").maybe()?.integer({ min: 1 }) ?? null,
  };
}

export function parseDerivation(src: Def): DerivationDef {
  src.fields(
    ["name", "description", "trigger", "sources", "model", "limits", "tasks", "emit"],
    ["name", "sources", "limits", "tasks", "emit"],
  );
  const name = parseName(src.at("name"));
  const limits = parseLimits(src.at("limits"));
  const sources: Record<string, DerivationSource> = {};
  const sourceEntries = src.at("sources").entries();
  if (sourceEntries.length === 0) src.at("sources").fail("must declare at least one source");
  for (const [sourceName, source] of sourceEntries) {
    if (!NAME.test(sourceName)) source.fail(`source name "${sourceName}" is not ${NAME_HINT}`);
    sources[sourceName] = parseSource(source, limits);
  }
  const tasksSrc = src.at("tasks");
  const tasks: DerivationTask[] = [];
  for (const taskSrc of tasksSrc.list({ min: 1 })) {
    const task = parseTask(taskSrc);
    if (tasks.some((other) => other.id === task.id)) {
      taskSrc.at("id").fail(`duplicate task id "${task.id}"`, "definition_duplicate");
    }
    tasks.push(task);
  }
  if (tasks.length > limits.max_tasks) {
    tasksSrc.fail(`declares ${tasks.length} tasks but limits.max_tasks is ${limits.max_tasks}`);
  }
  if (tasks.length > limits.max_llm_calls) {
    src
      .at("limits")
      .at("max_llm_calls")
      .fail(`must allow at least one call per task (${tasks.length} tasks)`);
  }
  const triggerSrc = src.at("trigger").maybe();
  return {
    name,
    description: src.at("description").maybe()?.string() ?? null,
    trigger: triggerSrc ? parseInlineTrigger(triggerSrc, name) : null,
    sources,
    model: src.at("model").maybe() ? parseName(src.at("model")) : null,
    limits,
    tasks,
    emit: parseEmit(src.at("emit"), tasks),
  };
}

/** The alias a derivation calls: its own model, else conf/models.yaml defaults.derivation. */
export function modelAlias(def: DerivationDef, index: CatalogIndex): string | null {
  return def.model ?? index.models.def.defaults.derivation ?? null;
}

export function linkDerivation(def: DerivationDef, src: Def, index: CatalogIndex): void {
  if (def.model) checkAlias(index, def.model, "model", src.at("model"));
  else if (!index.models.def.defaults.derivation) {
    src
      .at("model")
      .fail("no model alias and conf/models.yaml has no defaults.derivation", "definition_unresolved");
  }
  for (const [sourceName, source] of Object.entries(def.sources)) {
    const at: Def = src.at("sources").at(sourceName);
    source.collections.forEach((name, i) => {
      const versions = resolveCollectionName(index, name, at.at("collections").at(i));
      if (source.kind === "current" && versions.every((entry) => entry.def.mode === "event")) {
        at.at("collections")
          .at(i)
          .fail(`a current source reads keyed values; collection "${name}" is an event collection`);
      }
    });
  }
  const emitAt = src.at("emit");
  const collectionAt: Def = emitAt.at("collection");
  const versions = resolveCollectionName(index, def.emit.collection, collectionAt);
  const target = versions.find((entry) => entry.def.active);
  if (!target) {
    collectionAt.fail(`collection "${def.emit.collection}" has no active version listed in the package`);
  }
  if (def.emit.keys && target.def.mode === "event") {
    emitAt
      .at("keys")
      .fail(`collection "${def.emit.collection}" is an event collection; keys need a keyed or mixed one`);
  }
}

/** The inline trigger of a derivation as an entry (its source is the `trigger` key). */
export function inlineTrigger(entry: Entry<DerivationDef>): Entry<TriggerDef> | null {
  return entry.def.trigger ? { def: entry.def.trigger, src: entry.src.at("trigger") } : null;
}

/** The discovery entry of a derivation (`GET /processors`): no task configuration or prompts. */
export function derivationSummary(def: DerivationDef) {
  const kinds = [...new Set(Object.values(def.sources).map((source) => source.kind))];
  return {
    name: def.name,
    family: "derivation" as const,
    description: def.description,
    /** The source kinds it reads (changes, snapshot, current), sorted. */
    source: kinds.sort(),
    sources: Object.fromEntries(
      Object.entries(def.sources).map(([name, source]) => [
        name,
        { ...source, collections: [...source.collections] },
      ]),
    ),
    model: def.model,
    trigger: def.trigger ? def.trigger.name : null,
    tasks: def.tasks.map((task) => ({ id: task.id, use: task.use })),
    limits: { ...def.limits },
    emit: { ...def.emit, keys: def.emit.keys ? [...def.emit.keys] : null },
  };
}
