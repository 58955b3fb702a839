// Compact rows of search results for a prompt (docs/api.md, "Rendering"): the `rendered` block.
//
// Row format, one line per record:
//
//   [<id>] <occurred_at UTC, whole seconds>Z <collection>/<type>[ key=<key>][ <score>=<value>...] | <text>
//   [0b7c...] 2026-01-02T03:04:05Z customer_events/ticket key=plan urgency=0.83 | The customer asked ...
//
// - key only when the record has one; scores are the names passed in displayScores (the catalog's
//   score processors), in that order, each only when the record has a finite stored value,
//   rounded to at most 2 decimals.
// - text: line breaks become spaces (a record cannot forge extra rows), then shortened from the
//   middle to 500 code points (shape.ts shortenMiddle), then escaped.
// - Every part of every row, and the preamble, is escaped exactly once (& < > to &amp; &lt;
//   &gt;) as the last step of building it, so nothing is ever escaped twice; raw text that
//   already contains "&amp;" correctly renders as "&amp;amp;".
// - Only the record's own columns are read, so include/fields/annotations cannot change rows.
// - With a fence: `[<preamble>\n]<tag untrusted="true">\n<row>\n...<row>\n</tag>`; an empty
//   preamble is left out; no rows gives `<tag untrusted="true">\n</tag>`. Without a fence the
//   rows are joined by "\n" (no trailing newline); no rows gives "".
// - Truncation: rows are added in order while the block stays within budgetTokens; at the first
//   row that does not fit, rendering stops and `[truncated: N more records]` is appended (N =
//   records not rendered); rows are dropped from the end until that row fits too. If even the
//   wrapper (plus the truncation row when needed) exceeds the budget, rendered is "" (nothing
//   untrusted is emitted) and tokens 0.
//
// Token counting (gpt-tokenizer, o200k_base; special-token strings are counted as plain text):
// each row is encoded once as `row + "\n"` (the very last line of a bare block once more without
// its newline) and the wrapper once; their sum is compared to the budget, never the whole block
// per row. Every row starts with "[" right after a newline and the closing tag with "<", where
// o200k_base's pre-tokenizer always splits, so the sum equals the real count (a newline that
// follows punctuation merges into the row before it, which is why a row is counted with its
// newline). As a safety net the final block is encoded once more and, should the sum ever have
// underestimated, rows are dropped until the exact count fits; tokens is that exact count.
import { encode } from "gpt-tokenizer";
import type { CatalogIndex } from "../catalog/index.js";
import { shortenMiddle } from "./shape.js";
import type { ShownCandidate } from "./types.js";

/** Text characters per rendered row (spec Limits: "rendered text per row"). */
export const RENDER_TEXT_CHARS = 500;
/** Default render budget (RENDER_BUDGET_TOKENS). */
export const DEFAULT_RENDER_BUDGET_TOKENS = 16_000;

const FENCE_TAG = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;
const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;" };
const LINE_BREAKS = /\r\n|[\n\r\v\f\u0085\u2028\u2029]/g;
const NO_SPECIAL = { disallowedSpecial: new Set<string>() };

export interface RenderOptions {
  budgetTokens: number;
  fence?: { tag: string; preamble?: string };
  displayScores?: readonly string[];
}

export interface RenderResult {
  rendered: string;
  /** How many of the rows were rendered (the first ones). */
  rows: number;
  truncated: boolean;
  tokens: number;
}

/** Escapes &, < and > (single pass: an escape is never escaped again). */
export function escapeMarkup(text: string): string {
  return text.replace(/[&<>]/g, (c) => ESCAPES[c] ?? c);
}

/** Tokens of text by the render tokenizer; special-token strings count as plain text. */
export function countRenderTokens(text: string): number {
  return text ? encode(text, NO_SPECIAL).length : 0;
}

function oneLine(text: string): string {
  return text.replace(LINE_BREAKS, " ");
}

function formatScore(value: number): string {
  return String(Math.round(value * 100) / 100);
}

function utcSeconds(date: Date): string {
  return Number.isNaN(date.getTime()) ? "invalid-date" : date.toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** What a rendered row shows of a record. */
export type RowRecord = Pick<
  ShownCandidate,
  "id" | "occurred_at" | "collection" | "type" | "key" | "scores" | "text"
>;

/** The scores a rendered row shows: the catalog's score processors, in catalog order. */
export function displayScoreNames(index: CatalogIndex): string[] {
  return [...index.processors.values()].filter((p) => p.def.kind === "score").map((p) => p.def.name);
}

/** One rendered row (escaped, a single line). */
export function renderRow(candidate: RowRecord, displayScores: readonly string[] = []): string {
  const parts = [
    `[${escapeMarkup(oneLine(candidate.id))}]`,
    utcSeconds(candidate.occurred_at),
    `${escapeMarkup(oneLine(candidate.collection))}/${escapeMarkup(oneLine(candidate.type))}`,
  ];
  if (candidate.key !== null && candidate.key !== undefined) {
    parts.push(`key=${escapeMarkup(oneLine(candidate.key))}`);
  }
  for (const name of displayScores) {
    const value = Object.hasOwn(candidate.scores, name) ? candidate.scores[name] : undefined;
    if (typeof value === "number" && Number.isFinite(value)) {
      parts.push(`${escapeMarkup(oneLine(name))}=${formatScore(value)}`);
    }
  }
  const text = escapeMarkup(shortenMiddle(oneLine(candidate.text), RENDER_TEXT_CHARS));
  return `${parts.join(" ")} | ${text}`;
}

export function truncationRow(omitted: number): string {
  return `[truncated: ${omitted} more record${omitted === 1 ? "" : "s"}]`;
}

export interface Wrapper {
  head: string;
  tail: string;
}

/** The fence around a block (preamble line and element), or nothing without a fence. */
export function wrapper(fence: RenderOptions["fence"]): Wrapper {
  if (!fence) return { head: "", tail: "" };
  if (!FENCE_TAG.test(fence.tag)) throw new Error(`renderRows: invalid fence tag "${fence.tag}"`);
  const preamble = fence.preamble ? `${escapeMarkup(fence.preamble)}\n` : "";
  return { head: `${preamble}<${fence.tag} untrusted="true">\n`, tail: `</${fence.tag}>` };
}

/** Lines in the wrapper, one a line; bare lines are joined without a trailing newline. */
export function wrapLines(wrap: Wrapper, lines: readonly string[]): string {
  const body = lines.map((line) => `${line}\n`).join("");
  const block = wrap.head + body + wrap.tail;
  // Bare rows carry no trailing newline.
  return wrap.head || wrap.tail ? block : block.replace(/\n$/, "");
}

/** Renders rows in order within budgetTokens (see the header for the format and the rules). */
export function renderRows(rows: readonly RowRecord[], options: RenderOptions): RenderResult {
  const budget = Math.max(0, Math.floor(options.budgetTokens));
  const wrap = wrapper(options.fence);
  const wrapperTokens = countRenderTokens(wrap.head) + countRenderTokens(wrap.tail);
  const kept: string[] = [];
  const keptTokens: number[] = [];
  const bare = !options.fence;
  // A line's tokens when it ends the block: bare blocks carry no newline after their last line.
  const asLast = (line: string, withNewline: number) => (bare ? countRenderTokens(line) : withNewline);
  let used = wrapperTokens;
  for (const [i, candidate] of rows.entries()) {
    const line = renderRow(candidate, options.displayScores);
    const tokens = countRenderTokens(`${line}\n`);
    // Every row but the last of the list is followed by a newline (another row or the
    // truncation row).
    if (used + (i === rows.length - 1 ? asLast(line, tokens) : tokens) > budget) break;
    kept.push(line);
    keptTokens.push(tokens);
    used += tokens;
  }

  // Drops rows from the end until the truncation row (when needed) fits by the per-row sums.
  const fitTruncation = (): string | null => {
    if (kept.length === rows.length) return null;
    for (;;) {
      const marker = truncationRow(rows.length - kept.length);
      if (used + asLast(marker, countRenderTokens(`${marker}\n`)) <= budget || kept.length === 0) {
        return marker;
      }
      kept.pop();
      used -= keptTokens.pop() ?? 0;
    }
  };

  for (;;) {
    const marker = fitTruncation();
    const lines = marker === null ? kept : [...kept, marker];
    const block = wrapLines(wrap, lines);
    const exact = countRenderTokens(block);
    if (exact <= budget)
      return { rendered: block, rows: kept.length, truncated: marker !== null, tokens: exact };
    if (kept.length === 0) return { rendered: "", rows: 0, truncated: true, tokens: 0 };
    // The per-row sum underestimated: drop the last row and check again.
    kept.pop();
    used -= keptTokens.pop() ?? 0;
  }
}
