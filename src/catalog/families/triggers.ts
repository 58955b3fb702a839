// Triggers: what queues a derivation job for an entity. Two forms:
// - standalone (`triggers/*.yaml`, a `triggers:` list): {name, derivation, on, ...}; the
//   manifest lists it by name;
// - inline, under a derivation's `trigger` key: the same fields without name and derivation;
//   the manifest lists it as `<derivation>.default` (triggerName()).
//
// `on` (default `accumulator`) selects the firing rule and the fields it takes:
// | on          | fields | fires |
// |-------------|--------|-------|
// | accumulator | accumulator {metric, threshold, cooldown_s} | when the summed committed `metric` scores of ready evidence above the last successful watermark reach threshold (number > 0); cooldown_s (integer >= 0, default 0) between two queues |
// | write       | collections (optional names; default: the derivation's source collections), cooldown_s | when a ready record lands in one of those collections for the entity |
// | read        | cooldown_s | when the entity is read (document, artifact render) while its sources hold evidence above the watermark |
// | cron        | cron (UTC cron expression) | on each tick, for every entity whose sources hold evidence above the watermark |
// Jobs are coalesced, so a trigger never queues two pending jobs for one entity.
//
// Link: the derivation is listed; the accumulator metric is a listed score processor that runs
// on at least one of the derivation's source collections; write collections are listed and
// are source collections of the derivation.
import { Cron } from "croner";
import {
  type AccumulatorDef,
  type CatalogIndex,
  type Def,
  type DerivationDef,
  missingReference,
  NAME,
  NAME_HINT,
  type TriggerDef,
  type TriggerOn,
} from "../definition/index.js";
import { parseName, resolveCollectionName } from "./processors.js";

export const TRIGGER_ON: readonly TriggerOn[] = ["accumulator", "write", "read", "cron"];

export const INLINE_TRIGGER_SUFFIX = ".default";

/** The manifest name of a derivation's inline trigger: `<derivation>.default`. */
export function triggerName(derivation: string): string {
  return `${derivation}${INLINE_TRIGGER_SUFFIX}`;
}

/** The derivation an inline trigger name belongs to, or null for a standalone trigger name. */
export function inlineTriggerDerivation(name: string): string | null {
  if (!name.endsWith(INLINE_TRIGGER_SUFFIX)) return null;
  const derivation = name.slice(0, -INLINE_TRIGGER_SUFFIX.length);
  return NAME.test(derivation) ? derivation : null;
}

const BY_ON: Record<TriggerOn, { allowed: string[]; required: string[] }> = {
  accumulator: { allowed: ["accumulator"], required: ["accumulator"] },
  write: { allowed: ["collections", "cooldown_s"], required: [] },
  read: { allowed: ["cooldown_s"], required: [] },
  cron: { allowed: ["cron"], required: ["cron"] },
};
const RULE_KEYS = ["accumulator", "collections", "cooldown_s", "cron"];

/**
 * The shortest a schedule's ticks may be apart (docs/catalog.md, "Triggers"): a tick queues
 * work for up to CRON_ENTITIES_MAX entities, so a tenant's schedule may not fire faster.
 */
export const CRON_MIN_INTERVAL_S = 300;
/**
 * Ticks read to find a schedule's shortest gap, from a fixed start: every active day's ticks
 * repeat one pattern, so a day of them (or 500, whose mean gap is under the minimum) shows it.
 */
const CRON_SAMPLE_TICKS = 500;
const CRON_SAMPLE_FROM = new Date("2026-01-01T00:00:00Z");

/** The shortest time between two consecutive ticks among the sampled ones, in seconds. */
function shortestGapS(schedule: Cron): number {
  const ticks = schedule.nextRuns(CRON_SAMPLE_TICKS, CRON_SAMPLE_FROM).map((tick) => tick.getTime());
  let shortest = Number.POSITIVE_INFINITY;
  for (let i = 1; i < ticks.length; i++) {
    shortest = Math.min(shortest, ((ticks[i] as number) - (ticks[i - 1] as number)) / 1000);
  }
  return shortest;
}

/** A UTC cron expression (5 or 6 fields), checked with croner, firing at most every CRON_MIN_INTERVAL_S. */
export function parseCron(src: Def): string {
  const text = src.string();
  let schedule: Cron | undefined;
  try {
    schedule = new Cron(text, { timezone: "UTC", paused: true });
  } catch (error) {
    src.fail(`not a valid cron expression: ${(error as Error).message}`);
  }
  const gap = shortestGapS(schedule);
  schedule.stop();
  if (gap < CRON_MIN_INTERVAL_S) {
    src.fail(
      `"${text}" fires ${gap} s apart; a schedule may fire at most once every ${CRON_MIN_INTERVAL_S} s (5 minutes)`,
    );
  }
  return text;
}

function parseAccumulator(src: Def): AccumulatorDef {
  src.fields(["metric", "threshold", "cooldown_s"], ["metric", "threshold"]);
  return {
    metric: parseName(src.at("metric")),
    threshold: src.at("threshold").number({ above: 0 }),
    cooldown_s: src.at("cooldown_s").maybe()?.integer({ min: 0 }) ?? 0,
  };
}

function parseRule(
  src: Def,
  head: readonly string[],
  name: string,
  derivation: string,
  inline: boolean,
): TriggerDef {
  src.fields([...head, "on", "description", ...RULE_KEYS], head);
  const on = src.at("on").maybe()?.oneOf(TRIGGER_ON) ?? "accumulator";
  const rule = BY_ON[on];
  for (const key of RULE_KEYS) {
    if (!rule.allowed.includes(key) && src.at(key).present)
      src.at(key).fail(`an ${on} trigger takes no ${key}`);
  }
  src.fields([...head, "on", "description", ...rule.allowed], [...head, ...rule.required]);
  return {
    name,
    derivation,
    inline,
    on,
    accumulator: on === "accumulator" ? parseAccumulator(src.at("accumulator")) : null,
    collections:
      src
        .at("collections")
        .maybe()
        ?.strings({ min: 1, item: { pattern: NAME, patternHint: NAME_HINT } }) ?? null,
    cron: on === "cron" ? parseCron(src.at("cron")) : null,
    cooldown_s:
      on === "write" || on === "read" ? (src.at("cooldown_s").maybe()?.integer({ min: 0 }) ?? 0) : null,
    description: src.at("description").maybe()?.string() ?? null,
  };
}

/** A standalone trigger of `triggers/*.yaml`. */
export function parseTrigger(src: Def): TriggerDef {
  src.fields(["name", "derivation", "on", "description", ...RULE_KEYS], ["name", "derivation"]);
  const name = parseName(src.at("name"));
  const derivation = parseName(src.at("derivation"));
  return parseRule(src, ["name", "derivation"], name, derivation, false);
}

/** The inline trigger under a derivation (`trigger:`), named `<derivation>.default`. */
export function parseInlineTrigger(src: Def, derivation: string): TriggerDef {
  return parseRule(src, [], triggerName(derivation), derivation, true);
}

/** The source collections of a derivation (every source's collections, deduplicated). */
function sourceCollections(derivation: DerivationDef): Set<string> {
  return new Set(Object.values(derivation.sources).flatMap((source) => source.collections));
}

export function linkTrigger(def: TriggerDef, src: Def, index: CatalogIndex): void {
  const derivation = index.derivations.get(def.derivation);
  if (!derivation) {
    // An inline trigger cannot name another derivation: its derivation is the file it sits in.
    missingReference(index, "derivations", def.derivation, def.inline ? src : src.at("derivation"));
  }
  const sources = sourceCollections(derivation.def);
  if (def.accumulator) {
    const at: Def = src.at("accumulator").at("metric");
    const processor = index.processors.get(def.accumulator.metric);
    if (!processor) missingReference(index, "processors", def.accumulator.metric, at);
    if (processor.def.kind !== "score") {
      at.fail(
        `processor "${def.accumulator.metric}" is a ${processor.def.kind} processor; the metric needs a score processor`,
      );
    }
    if (!processor.def.input.collections.some((name) => sources.has(name))) {
      at.fail(
        `score processor "${def.accumulator.metric}" runs on none of derivation "${def.derivation}"'s source collections (${[...sources].join(", ")}), so its scores never accumulate`,
      );
    }
  }
  def.collections?.forEach((name, i) => {
    const at: Def = src.at("collections").at(i);
    resolveCollectionName(index, name, at);
    if (!sources.has(name)) {
      at.fail(`collection "${name}" is not a source collection of derivation "${def.derivation}"`);
    }
  });
}

/** The discovery entry of a trigger (`GET /triggers`), with the derivations it queues. */
export function triggerSummary(name: string, def: TriggerDef) {
  return {
    name,
    inline: def.inline,
    on: def.on,
    derivations: [def.derivation],
    accumulator: def.accumulator ? { ...def.accumulator } : null,
    collections: def.collections ? [...def.collections] : null,
    cron: def.cron,
    cooldown_s: def.accumulator ? def.accumulator.cooldown_s : def.cooldown_s,
    description: def.description,
  };
}
