import { readdirSync, readFileSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// docs/development.md "Where a rule lives" maps each rule family to the module that holds its
// code, and "Adding an endpoint" walks the files a new route touches. Both must follow the tree:
// every path they name exists (a path ending in / is a folder), and every top-level folder of
// src/ is named in the map at least once, so a moved or new folder cannot leave it behind.

const root = fileURLToPath(new URL("../../", import.meta.url));
const RULES = "## Where a rule lives";
const ENDPOINT = "## Adding an endpoint";

/** The cells of a markdown table row, trimmed. */
function cells(line: string): string[] {
  const trimmed = line.trimEnd();
  return trimmed
    .slice(1, trimmed.endsWith("|") ? trimmed.length - 1 : undefined)
    .split("|")
    .map((cell) => cell.trim());
}

/** The table under a section as rows of named cells (by the header's column names). */
function sectionTable(markdown: string, section: string): Record<string, string>[] {
  const start = markdown.indexOf(`\n${section}\n`);
  if (start < 0) throw new Error(`docs/development.md has no "${section}" section`);
  const rest = markdown.slice(start + section.length + 2);
  const end = rest.search(/^#{2,3} /m);
  const lines = (end < 0 ? rest : rest.slice(0, end)).split("\n").filter((line) => line.startsWith("|"));
  const [header, divider, ...body] = lines;
  if (!header || !divider) throw new Error(`"${section}" holds no table`);
  const columns = cells(header);
  return body.map((line) => Object.fromEntries(cells(line).map((cell, i) => [columns[i] ?? "", cell])));
}

/** The backticked names of a cell that are paths of the repository (they hold a slash). */
function paths(cell: string | undefined): string[] {
  return [...(cell ?? "").matchAll(/`([^`]+)`/g)]
    .map((match) => match[1] ?? "")
    .filter((name) => /^[\w.-]+\/[\w./-]*$/.test(name));
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

describe("the rule map and the endpoint walk-through in docs/development.md", () => {
  const markdown = readFileSync(`${root}docs/development.md`, "utf8");
  const rules = sectionTable(markdown, RULES).map((row) => ({
    family: row["Rule family"] ?? "",
    modules: paths(row.Module),
  }));
  const modules = rules.flatMap((row) => row.modules);
  const steps = sectionTable(markdown, ENDPOINT).map((row) => ({
    step: row.Step ?? "",
    files: paths(row.File),
  }));

  it("gives every rule family a module, and every step of adding an endpoint a file", () => {
    expect(rules.length).toBeGreaterThan(0);
    expect(rules.filter((row) => row.family === "" || row.modules.length === 0)).toEqual([]);
    expect(steps.length).toBeGreaterThan(0);
    expect(steps.filter((row) => row.step === "" || row.files.length === 0)).toEqual([]);
  });

  it("names only paths the tree holds", () => {
    expect(modules.filter((path) => !exists(path))).toEqual([]);
    expect(steps.flatMap((row) => row.files).filter((path) => !exists(path))).toEqual([]);
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
