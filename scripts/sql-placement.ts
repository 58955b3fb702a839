// Where the SQL of src/ lives and who writes each table (docs/development.md, "Tables and their
// owners"): SQL text only in a module's SQL files (`sql.ts`, or `<topic>-sql.ts` beside it) and the
// migrations; a statement that writes a table (INSERT, UPDATE, DELETE, an upsert, TRUNCATE) only
// in the SQL files of the table's owning module. Literals are read with the TypeScript parser,
// templates with `?` where their expressions stand, so SQL assembled in code is seen too.
// `node --import tsx scripts/sql-placement.ts` prints what breaks a rule (exit 1) or nothing;
// test/unit/sql-placement.test.ts runs the same check in the suite.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

export interface SqlLiteral {
  /** Repository-relative path, forward slashes. */
  file: string;
  line: number;
  text: string;
}

export interface PlacementViolation {
  rule: string;
  detail: string;
}

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const MIGRATIONS = "src/platform/db/migrations/";
const OWNERS_SECTION = "### Tables and their owners";

const posix = (path: string) => path.split(sep).join("/");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith(".ts") ? [path] : [];
  });
}

/** Whether a file may hold SQL text: a module's SQL file, or a migration. */
export function isSqlFile(path: string): boolean {
  return /(^|\/)sql\.ts$|-sql\.ts$/.test(path) || path.startsWith(MIGRATIONS);
}

// Keywords (upper case, as every statement here writes them) that only SQL puts together: a
// statement's opening, or a clause that a fragment assembled elsewhere carries.
const SQL_TEXT = new RegExp(
  [
    "\\b(?:SELECT|INSERT INTO|DELETE FROM|UPDATE \\S+ SET|WITH (?:RECURSIVE )?\\S+ AS|ON CONFLICT|ORDER BY|GROUP BY|JOIN|RETURNING|WHERE|NULLS (?:FIRST|LAST))\\b",
    "\\b(?:CREATE|ALTER|DROP) (?:UNIQUE )?(?:INDEX|TABLE|EXTENSION|DATABASE)\\b",
    "\\b(?:ANALYZE|VACUUM|TRUNCATE|LOCK TABLE|RESET)\\b",
    "\\bSET (?:LOCAL )?[a-z_.]+ *(?:=|TO\\b)",
    "\\bEXISTS \\(",
  ].join("|"),
);

/** Whether a literal's text is SQL (or a fragment of it). */
export function isSqlText(text: string): boolean {
  return SQL_TEXT.test(text);
}

/** The text of a string or template literal, `?` where a template's expressions stand. */
function literalText(node: ts.Node): string | null {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node)) {
    return node.head.text + node.templateSpans.map((span) => `?${span.literal.text}`).join("");
  }
  return null;
}

/** Whether a literal is the message of an error thrown (`new …Error(…)`): it may show the user SQL to run. */
function isErrorMessage(node: ts.Node): boolean {
  const call = node.parent;
  return (
    ts.isNewExpression(call) &&
    call.arguments?.[0] === node &&
    ts.isIdentifier(call.expression) &&
    call.expression.text.endsWith("Error")
  );
}

/** Every SQL literal of src/ outside the migrations, with `overlay` (path → text) replacing or adding files. */
export function sqlLiterals(overlay: Record<string, string> = {}): SqlLiteral[] {
  const texts = new Map<string, string>();
  for (const file of sourceFiles(join(ROOT, "src"))) {
    texts.set(posix(relative(ROOT, file)), readFileSync(file, "utf8"));
  }
  for (const [path, text] of Object.entries(overlay)) texts.set(path, text);
  const found: SqlLiteral[] = [];
  for (const [file, text] of texts) {
    if (file.startsWith(MIGRATIONS)) continue;
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      const literal = literalText(node);
      if (literal !== null) {
        if (isSqlText(literal) && !isErrorMessage(node)) {
          const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
          found.push({ file, line, text: literal });
        }
        return;
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

/** The tables a statement writes; `?` for a table named by an expression. */
export function writtenTables(text: string): string[] {
  const writes =
    /\b(?:INSERT INTO|DELETE FROM|UPDATE|TRUNCATE(?: TABLE)?|MERGE INTO)\s+(ONLY\s+)?([a-z_][a-z0-9_.]*|\?)/g;
  return [...new Set([...text.matchAll(writes)].map((match) => match[2] as string))].filter(
    // UPDATE also opens ON CONFLICT's DO UPDATE SET and FOR UPDATE: neither names a table.
    (table) => table !== "set" && table !== "of",
  );
}

/**
 * The table → owner map of docs/development.md: each row's backticked table names and its owning
 * module (a folder of src/), and where a table named by an expression may be written.
 */
export function readOwners(
  markdown = readFileSync(join(ROOT, "docs/development.md"), "utf8"),
): Map<string, string> {
  const start = markdown.indexOf(`\n${OWNERS_SECTION}\n`);
  if (start < 0) throw new Error(`docs/development.md has no "${OWNERS_SECTION}" section`);
  const rest = markdown.slice(start + OWNERS_SECTION.length + 2);
  const end = rest.search(/^#{2,3} /m);
  const rows = (end < 0 ? rest : rest.slice(0, end)).split("\n").filter((line) => line.startsWith("|"));
  const owners = new Map<string, string>();
  for (const row of rows.slice(2)) {
    const [tables = "", owner = ""] = row.split("|").slice(1, 3);
    const folder = /`([^`]+\/)`/.exec(owner)?.[1];
    if (!folder) throw new Error(`"${OWNERS_SECTION}" row names no owning folder: ${row}`);
    for (const [, name = ""] of tables.matchAll(/`([^`]+)`/g)) {
      // A table named by an expression (`${kind.table}`) reads as `?`, as literals show it.
      const table = name.startsWith("${") ? "?" : name;
      if (owners.has(table)) throw new Error(`"${OWNERS_SECTION}" names ${name} twice`);
      owners.set(table, folder);
    }
  }
  return owners;
}

/** Every SQL literal in a file that may not hold SQL. */
export function misplacedSql(literals: SqlLiteral[]): PlacementViolation[] {
  return literals
    .filter(({ file }) => !isSqlFile(file))
    .map(({ file, line, text }) => ({
      rule: "SQL text only in sql.ts files",
      detail: `${file}:${line} ${text.replace(/\s+/g, " ").trim().slice(0, 60)}`,
    }));
}

/** Every statement writing a table outside the SQL files of the table's owner, or a table with none. */
export function misplacedWrites(literals: SqlLiteral[], owners: Map<string, string>): PlacementViolation[] {
  return literals.flatMap(({ file, line, text }) =>
    writtenTables(text).flatMap((table) => {
      const detail = `${file}:${line} writes ${table}`;
      const owner = owners.get(table);
      if (!owner) return [{ rule: "every table written has an owner", detail }];
      const inOwner = file.startsWith(owner) && !file.slice(owner.length).includes("/") && isSqlFile(file);
      return inOwner ? [] : [{ rule: `${table} is written only by ${owner}`, detail }];
    }),
  );
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const literals = sqlLiterals();
  const violations = [...misplacedSql(literals), ...misplacedWrites(literals, readOwners())];
  for (const { rule, detail } of violations) process.stdout.write(`${rule}: ${detail}\n`);
  process.exit(violations.length === 0 ? 0 : 1);
}
