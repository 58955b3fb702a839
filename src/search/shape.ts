// Shapes the optional parts of one search hit (docs/api.md, "The search response"): what include, fields
// and annotations asked for. The caller adds id, rank, score, rank_score and source_ranks.
//
// Decisions:
// - Characters are counted in Unicode code points, so a surrogate pair is never split (grapheme
//   clusters such as emoji ZWJ sequences may still be split between their code points).
// - Included keys come back in INCLUDE_FIELDS order whatever the order of the request.
// - Hit text is not prompt-escaped (only rendered rows are).
// - fields/annotations objects are built with Object.fromEntries so any name becomes an own
//   property (never a prototype write), and are omitted when nothing was requested.
import { type CollectionDef, fieldValue, INCLUDE_FIELDS, type IncludeField } from "../catalog/index.js";
import type { ShownCandidate } from "./types.js";

/** Hit text limit (spec Limits: "hit text"). */
export const HIT_TEXT_CHARS = 2000;

/** The marker put in place of the omitted middle. */
export function omissionMarker(omitted: number): string {
  return ` … [${omitted} characters omitted] … `;
}

/**
 * Shortens text from the middle to at most `max` code points, marker included, keeping the head
 * and the tail. Text already within `max` comes back unchanged. When even the marker does not
 * fit in `max`, the first `max` code points are returned without a marker.
 */
export function shortenMiddle(text: string, max: number): string {
  const limit = Math.max(0, Math.floor(max));
  // Quick exit: UTF-16 length is an upper bound of the code point count.
  if (text.length <= limit) return text;
  const chars = Array.from(text);
  if (chars.length <= limit) return text;
  // The marker's length depends on the number of digits of the omitted count: iterate to the
  // fixed point (monotone, at most a few rounds).
  let omitted = chars.length - limit;
  for (;;) {
    const next = chars.length - (limit - Array.from(omissionMarker(omitted)).length);
    if (next === omitted) break;
    omitted = next;
  }
  const keep = chars.length - omitted;
  if (keep < 0 || omitted > chars.length) return chars.slice(0, limit).join("");
  const head = Math.ceil(keep / 2);
  const tail = keep - head;
  return chars.slice(0, head).join("") + omissionMarker(omitted) + chars.slice(chars.length - tail).join("");
}

export interface ShapeRequest {
  include: readonly IncludeField[];
  fields: readonly string[];
  annotations: readonly string[];
}

function includedValue(candidate: ShownCandidate, field: IncludeField): unknown {
  switch (field) {
    case "text":
      return shortenMiddle(candidate.text, HIT_TEXT_CHARS);
    case "scores":
      return { ...candidate.scores };
    case "occurred_at":
      return candidate.occurred_at.toISOString();
    case "created_at":
      return candidate.created_at.toISOString();
    case "key":
      return candidate.key ?? null;
    case "run_id":
      return candidate.run_id ?? null;
    default:
      return candidate[field];
  }
}

/**
 * The optional parts of one hit. `declaration` must be the declaration of the candidate's exact
 * collection version (fields are read through its paths); a mismatch is a programming error.
 */
export function shapeHit(
  candidate: ShownCandidate,
  request: ShapeRequest,
  declaration: CollectionDef,
): Record<string, unknown> {
  if (declaration.name !== candidate.collection || declaration.version !== candidate.collection_version) {
    throw new Error(
      `shapeHit: record ${candidate.id} is in ${candidate.collection}@${candidate.collection_version}, ` +
        `not ${declaration.name}@${declaration.version}`,
    );
  }
  const hit: Record<string, unknown> = {};
  const wanted = new Set(request.include);
  for (const field of INCLUDE_FIELDS) {
    if (wanted.has(field)) hit[field] = includedValue(candidate, field);
  }
  if (request.fields.length) {
    hit.fields = Object.fromEntries(
      request.fields.map((name) => {
        const decl = Object.hasOwn(declaration.fields, name) ? declaration.fields[name] : undefined;
        const value = decl ? fieldValue(candidate.content, decl.path) : undefined;
        return [name, value === undefined ? null : value];
      }),
    );
  }
  if (request.annotations.length) {
    hit.annotations = Object.fromEntries(
      request.annotations.map((name) => {
        const value = Object.hasOwn(candidate.annotations, name) ? candidate.annotations[name] : undefined;
        return [name, value === undefined ? null : value];
      }),
    );
  }
  return hit;
}
