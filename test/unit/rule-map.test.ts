import { readdirSync, readFileSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// docs/development.md "Where a rule lives" maps each rule family to the module that holds its
// code. The map must follow the tree: every module it names exists (a path ending in / is a
// folder), and every top-level folder of src/ is named at least once, so a moved or new folder
// cannot leave the map behind.

const root = fileURLToPath(new URL("../../", import.meta.url));
const SECTION = "## Where a rule lives";

interface RuleRow {
  family: string;
  modules: string[];
}

/** The table's rows under SECTION: each rule family with the backticked paths of its Module cell. */
function ruleRows(markdown: string): RuleRow[] {
  const start = markdown.indexOf(`\n${SECTION}\n`);
  if (start < 0) throw new Error(`docs/development.md has no "${SECTION}" section`);
  const rest = markdown.slice(start + SECTION.length + 2);
  const end = rest.search(/^## /m);
  const lines = (end < 0 ? rest : rest.slice(0, end)).split("\n").filter((line) => line.startsWith("|"));
  const cells = (line: string) =>
    line
      .slice(1, line.trimEnd().endsWith("|") ? line.trimEnd().length - 1 : undefined)
      .split("|")
      .map((cell) => cell.trim());
  const [header, divider, ...body] = lines;
  if (!header || !divider) throw new Error(`"${SECTION}" holds no table`);
  const columns = cells(header);
  const family = columns.indexOf("Rule family");
  const module = columns.indexOf("Module");
  if (family < 0 || module < 0)
    throw new Error(`the table's header lacks "Rule family" or "Module": ${header}`);
  return body.map((line) => {
    const row = cells(line);
    return {
      family: row[family] ?? "",
      modules: [...(row[module] ?? "").matchAll(/`([^`]+)`/g)].map((match) => match[1] ?? ""),
    };
  });
}

/** Whether a module path names what the tree holds: a folder for "…/", else a file or folder. */
function exists(path: string): boolean {
  try {
    const stat = statSync(root + path);
    return path.endsWith("/") ? stat.isDirectory() : stat.isFile() || stat.isDirectory();
  } catch {
    return false;
  }
}

describe("the rule map in docs/development.md", () => {
  const rows = ruleRows(readFileSync(`${root}docs/development.md`, "utf8"));
  const modules = rows.flatMap((row) => row.modules);

  it("gives every rule family a module", () => {
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.filter((row) => row.family === "" || row.modules.length === 0)).toEqual([]);
  });

  it("names only modules the tree holds", () => {
    expect(modules.filter((path) => !exists(path))).toEqual([]);
  });

  it("names every top-level folder of src/", () => {
    const folders = readdirSync(`${root}src`, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `src/${entry.name}/`);
    const named = (folder: string) =>
      modules.some((path) => path.startsWith(folder) || `${path}/` === folder);
    expect(folders.filter((folder) => !named(folder))).toEqual([]);
  });
});
