import { LineCounter, parseDocument } from "yaml";
import { inputProblems } from "../../platform/input.js";
import { Def, DefinitionError, type DefinitionPath, type LineLocator } from "../definition/index.js";

/**
 * The catalog layout (docs/catalog.md, "Layout and common rules"): which files exist and the list
 * key each starts with.
 */
export const FAMILIES = [
  { family: "packages", pattern: /^packages\/[^/]+\.ya?ml$/, listKey: undefined },
  { family: "collections", pattern: /^collections\/[^/]+\.ya?ml$/, listKey: "collections" },
  { family: "processors", pattern: /^processors\/[^/]+\.ya?ml$/, listKey: "processors" },
  { family: "derivations", pattern: /^derivations\/[^/]+\.ya?ml$/, listKey: "derivations" },
  { family: "triggers", pattern: /^triggers\/[^/]+\.ya?ml$/, listKey: "triggers" },
  { family: "views", pattern: /^views\/[^/]+\.ya?ml$/, listKey: "views" },
  { family: "artifacts", pattern: /^artifacts\/[^/]+\.ya?ml$/, listKey: "artifacts" },
  { family: "search_profiles", pattern: /^search_profiles\/[^/]+\.ya?ml$/, listKey: "search_profiles" },
  { family: "mcp", pattern: /^mcp\/[^/]+\.ya?ml$/, listKey: undefined },
  { family: "models", pattern: /^conf\/models\.ya?ml$/, listKey: undefined },
  { family: "rank", pattern: /^conf\/rank\.ya?ml$/, listKey: undefined },
] as const;

export type Family = (typeof FAMILIES)[number]["family"];

/** One parsed file: its family and its root value as a Def. */
export interface SourceFile {
  path: string;
  family: Family;
  root: Def;
}

function locator(doc: ReturnType<typeof parseDocument>, lines: LineCounter): LineLocator {
  return (path: DefinitionPath) => {
    const node = doc.getIn(path as (string | number)[], true) as
      | { range?: [number, number, number] }
      | undefined;
    const offset = node && typeof node === "object" && node.range ? node.range[0] : undefined;
    return offset === undefined ? undefined : lines.linePos(offset).line;
  };
}

/** Parses one catalog file strictly (duplicate keys and aliases of aliases are errors). */
export function parseFile(path: string, text: string): SourceFile {
  const entry = FAMILIES.find((f) => f.pattern.test(path));
  if (!entry) {
    throw new DefinitionError(
      "definition_unknown_file",
      path,
      [],
      "not part of the catalog layout (packages/, collections/, processors/, derivations/, triggers/, views/, artifacts/, search_profiles/, mcp/, conf/models.yaml, conf/rank.yaml; .yaml files only)",
    );
  }
  const lines = new LineCounter();
  const doc = yamlStep(path, () =>
    parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false, merge: false }),
  );
  const problem = doc.errors[0];
  if (problem) {
    const where = problem.linePos?.[0];
    throw new DefinitionError(
      "yaml_syntax",
      path,
      [],
      `${problem.message.split("\n")[0]}${where ? ` (line ${where.line}, column ${where.col})` : ""}`,
    );
  }
  const value = toValue(doc, path);
  const root = new Def(path, [], value === null ? undefined : value, locator(doc, lines));
  // List files start with their list key; the others are checked by their family's parser.
  if (entry.listKey) {
    root.fields([entry.listKey], [entry.listKey]);
    root.at(entry.listKey).list();
  }
  return { path, family: entry.family, root };
}

type ParsedDocument = ReturnType<typeof parseDocument>;

// Aliases may expand a small file into a huge value (a "billion laughs" alias bomb): the yaml
// library stops past this many alias expansions, and the value must then fit the input rules.
const MAX_ALIAS_COUNT = 100;

/** Runs a step of the yaml library; too deep a nesting or excessive aliasing is a yaml_syntax error. */
function yamlStep<T>(path: string, step: () => T): T {
  try {
    return step();
  } catch (error) {
    if (error instanceof RangeError)
      throw new DefinitionError("yaml_syntax", path, [], "the YAML nests too deeply");
    if (error instanceof ReferenceError) throw new DefinitionError("yaml_syntax", path, [], error.message);
    throw error;
  }
}

function toValue(doc: ParsedDocument, path: string): unknown {
  const value: unknown = yamlStep(path, () => doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }));
  const problem = inputProblems(value)[0];
  if (problem) throw new DefinitionError("definition_invalid", path, problem.path, problem.message);
  return value;
}

/** Parses every file of an upload, in path order so that errors are reported stably. */
export function parseFiles(files: Record<string, string>): SourceFile[] {
  return Object.keys(files)
    .sort()
    .map((path) => {
      const text = files[path];
      if (typeof text !== "string") {
        throw new DefinitionError("definition_invalid", path, [], "the file content must be YAML text");
      }
      return parseFile(path, text);
    });
}
