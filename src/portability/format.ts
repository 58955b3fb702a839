// The engram.export/v1 stream (docs/export.md): JSON Lines, a header line first, then one line
// per row (`kind` and the row's columns, kinds in dependency order), then an end line with the
// count of each kind, so that a file cut short is known and refused.
import { AppError } from "../platform/errors.js";
import { inputProblems, MAX_INPUT_DEPTH, printable } from "../platform/input.js";
import { KIND_ORDER } from "./kinds.js";

export const FORMAT = "engram.export/v1";

/** The end line's kind: what follows the rows. */
export const END = "end";

export interface CatalogInstallLine {
  id: string;
  package: string;
  catalog_hash: string;
  files: Record<string, string>;
  hashes: Record<string, string>;
  active: boolean;
  installed_at: string;
}

export interface Header {
  format: typeof FORMAT;
  exported_at: string;
  workspace: { name: string; id: string; created_at: string; last_seq: number };
  /** The entity an entity export holds (a portability request), or null for the whole workspace. */
  entity: string | null;
  with_embeddings: boolean;
  engram_version: string;
  catalog_installs: CatalogInstallLine[];
}

export type Counts = Record<string, number>;

/**
 * The longest row line read: a row holds no more than one POST /records body may (16 MiB,
 * docs/api.md "Limits"); checked before parsing. Not the header's: it carries the files of every
 * catalog install, each as large as a body.
 */
export const MAX_LINE_CHARS = 16 * 1024 * 1024;

export function refuse(line: number, detail: string): never {
  throw new AppError("import_invalid", `line ${line}: ${detail}; nothing was imported`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Whether JSON text nests objects and arrays deeper than max, counted over its characters
 * outside strings: a line is refused before JSON.parse and the checks after it ever walk it.
 */
function nestsDeeper(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/**
 * One line as a JSON object under the input rules of every request body (src/platform/input.ts:
 * bounded length and nesting, storable text, finite numbers), or a refusal naming the line.
 */
export function parseLine(text: string, line: number): Record<string, unknown> {
  if (line > 1 && text.length > MAX_LINE_CHARS)
    refuse(line, `the line is longer than ${MAX_LINE_CHARS} characters (a request body's limit)`);
  if (nestsDeeper(text, MAX_INPUT_DEPTH))
    refuse(line, `the line nests deeper than ${MAX_INPUT_DEPTH} levels of objects and arrays`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    refuse(line, "not a JSON object (a malformed line)");
  }
  if (!isObject(value)) refuse(line, "not a JSON object (a malformed line)");
  const [problem] = inputProblems(value);
  if (problem) {
    const path = problem.path.map((segment) => printable(String(segment))).join(".");
    refuse(line, `${path || "the line"} ${problem.message}`);
  }
  return value;
}

/** The first line: an engram.export/v1 header, with the fields an import relies on. */
export function parseHeader(text: string | undefined): Header {
  if (text === undefined) refuse(1, `the file is empty: an ${FORMAT} file starts with its header`);
  const header = parseLine(text, 1);
  if (header.format !== FORMAT) {
    refuse(1, `not an ${FORMAT} file (format: ${JSON.stringify(header.format ?? null)})`);
  }
  const workspace = header.workspace;
  const problems = [
    isObject(workspace) && Number.isSafeInteger(workspace.last_seq) ? undefined : "workspace.last_seq",
    header.entity === null || typeof header.entity === "string" ? undefined : "entity",
    typeof header.with_embeddings === "boolean" ? undefined : "with_embeddings",
    Array.isArray(header.catalog_installs) && header.catalog_installs.every(isObject)
      ? undefined
      : "catalog_installs",
  ].filter((problem) => problem !== undefined);
  if (problems.length > 0) refuse(1, `the header lacks or misstates ${problems.join(", ")}`);
  const active = (header.catalog_installs as CatalogInstallLine[]).filter((install) => install.active);
  if (active.length > 1) refuse(1, "the header lists more than one active catalog install");
  return header as unknown as Header;
}

/** Checks a row line's kind against the stream's order: dependency order, embeddings only if exported. */
export function checkKind(
  row: Record<string, unknown>,
  line: number,
  previous: number,
  header: Header,
): number {
  const at = KIND_ORDER.indexOf(row.kind as string);
  if (at < 0) refuse(line, `unknown kind ${JSON.stringify(row.kind ?? null)}`);
  if (at < previous) refuse(line, `a ${row.kind} line after ${KIND_ORDER[previous]} lines (out of order)`);
  if (row.kind === "embedding" && !header.with_embeddings) {
    refuse(line, "an embedding line in a file exported without embeddings");
  }
  return at;
}

/** The end line's counts must be those read (a file cut short or spliced is refused); returns them. */
export function checkEnd(row: Record<string, unknown>, line: number, read: Counts): Counts {
  const counts = row.counts;
  if (!isObject(counts)) refuse(line, "the end line has no counts");
  for (const kind of new Set([...Object.keys(counts), ...Object.keys(read)])) {
    if (!KIND_ORDER.includes(kind))
      refuse(line, `the end line counts an unknown kind ${JSON.stringify(kind)}`);
    const expected = counts[kind] ?? 0;
    if (expected !== (read[kind] ?? 0)) {
      refuse(
        line,
        `the end line counts ${String(expected)} ${kind} lines, the file holds ${read[kind] ?? 0}`,
      );
    }
  }
  return counts as Counts;
}

/**
 * A database error caused by the file's values (data exceptions, class 22, and constraint
 * violations, 23) as a refusal naming where they are; any other error as it is.
 */
export function fileError(error: unknown, where: string): unknown {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== "string" || !/^2[23]/.test(code)) return error;
  return new AppError("import_invalid", `${where}: ${(error as Error).message}; nothing was imported`);
}

/** A file that ends without its end line was cut short. */
export function refuseTruncated(lines: number): never {
  throw new AppError(
    "import_invalid",
    `the file ends after line ${lines} without its end line (truncated); nothing was imported`,
  );
}

export function refuseAfterEnd(line: number): never {
  refuse(line, "a line after the end line");
}
